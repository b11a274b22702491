import { VersionedCache } from './versioned-cache.js';

describe('VersionedCache', () => {
  const value = { name: 'caller' };

  it('answers a value only under the version it was loaded under', () => {
    const cache = new VersionedCache<typeof value>({ maxEntries: 10, maxAgeMs: 60_000 });
    cache.set('a', 'v1', value);
    expect(cache.get('a', 'v1')).toBe(value);
    expect(cache.get('a', 'v2')).toBeUndefined();
    expect(cache.get('b', 'v1')).toBeUndefined();
  });

  it('trusts nothing when the version cannot be read', () => {
    const cache = new VersionedCache<typeof value>({ maxEntries: 10, maxAgeMs: 60_000 });
    cache.set('a', 'v1', value);
    expect(cache.get('a', null)).toBeUndefined();
    cache.set('a', null, value);
    expect(cache.peek('a')).toBeUndefined();
  });

  it('keeps nothing whose own end has passed, and nothing past the age limit', async () => {
    const cache = new VersionedCache<typeof value>({ maxEntries: 10, maxAgeMs: 30 });
    cache.set('ended', 'v1', value, 0);
    expect(cache.get('ended', 'v1')).toBeUndefined();
    cache.set('short', 'v1', value, 10_000);
    expect(cache.get('short', 'v1')).toBe(value);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(cache.get('short', 'v1')).toBeUndefined();
  });

  it('drops the least recently used entry past its size', () => {
    const cache = new VersionedCache<typeof value>({ maxEntries: 2, maxAgeMs: 60_000 });
    cache.set('a', 'v', value);
    cache.set('b', 'v', value);
    expect(cache.get('a', 'v')).toBe(value);
    cache.set('c', 'v', value);
    expect(cache.get('b', 'v')).toBeUndefined();
    expect(cache.get('a', 'v')).toBe(value);
    expect(cache.get('c', 'v')).toBe(value);
  });
});
