import { TtlCache } from './ttl-cache.js';

/** A loader that counts its calls. */
function counted<T>(load: () => Promise<T>): (() => Promise<T>) & { calls: number } {
  const wrapper = Object.assign(
    () => {
      wrapper.calls++;
      return load();
    },
    { calls: 0 },
  );
  return wrapper;
}

describe('TtlCache', () => {
  let now: number;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000;
  });

  it('reuses a value until the TTL has passed since its load began', async () => {
    const cache = new TtlCache<string>(200, 10, clock);
    const load = counted(async () => `value-${now}`);
    await expect(cache.getOrLoad('k', load)).resolves.toBe('value-1000');
    now += 199;
    await expect(cache.getOrLoad('k', load)).resolves.toBe('value-1000');
    now += 1;
    await expect(cache.getOrLoad('k', load)).resolves.toBe('value-1200');
    expect(load.calls).toBe(2);
  });

  it('shares one load between concurrent callers', async () => {
    const cache = new TtlCache<number>(1_000, 10, clock);
    let release!: (value: number) => void;
    const load = counted(() => new Promise<number>((resolve) => (release = resolve)));
    const first = cache.getOrLoad('k', load);
    const second = cache.getOrLoad('k', load);
    release(7);
    await expect(Promise.all([first, second])).resolves.toEqual([7, 7]);
    expect(load.calls).toBe(1);
  });

  it('does not keep a failed load', async () => {
    const cache = new TtlCache<number>(1_000, 10, clock);
    await expect(cache.getOrLoad('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await expect(cache.getOrLoad('k', async () => 1)).resolves.toBe(1);
  });

  it('stays within its bound, dropping expired entries first, then the oldest', async () => {
    const cache = new TtlCache<string>(100, 3, clock);
    await cache.getOrLoad('a', async () => 'a');
    now += 50;
    await cache.getOrLoad('b', async () => 'b');
    await cache.getOrLoad('c', async () => 'c');
    now += 60; // `a` has expired
    await cache.getOrLoad('d', async () => 'd');
    expect(cache.size).toBe(3);
    await cache.getOrLoad('e', async () => 'e'); // nothing expired: `b`, the oldest, goes
    expect(cache.size).toBe(3);
    const reload = counted(async () => 'again');
    await cache.getOrLoad('c', reload);
    expect(reload.calls).toBe(0);
    await cache.getOrLoad('b', reload);
    expect(reload.calls).toBe(1);
  });

  it('with a TTL of 0 loads every time', async () => {
    const cache = new TtlCache<number>(0, 10, clock);
    const load = counted(async () => 1);
    await cache.getOrLoad('k', load);
    await cache.getOrLoad('k', load);
    expect(load.calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('refuses nonsense settings', () => {
    expect(() => new TtlCache(-1, 10)).toThrow(/cacheTtlMs/);
    expect(() => new TtlCache(10, 0)).toThrow(/cacheMaxEntries/);
  });
});
