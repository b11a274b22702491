import { HttpException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { VerifiedAccessToken } from './access-token.js';
import {
  CachedPrincipalSource,
  createPrincipalSource,
  introspectionLoader,
  principalFromMeResponse,
  remoteLoader,
} from './principal-source.js';
import type { FetchLike } from './verification-keys.js';

const claimsFor = (userId = randomUUID()): VerifiedAccessToken => ({
  userId,
  kind: 'person',
  digest: randomUUID(),
  sessionId: randomUUID(),
  email: 'a@example.com',
  expiresAt: Date.now() + 60_000,
  issuedAt: Math.floor(Date.now() / 1000),
});

const meBody = (id: string) => ({
  success: true,
  data: { id, name: 'Ada', email: 'a@example.com', mobile: null, roles: ['user'], permissions: ['contents.view'] },
});

/** A fetch that records its calls and answers from a script. */
function fakeFetch(answer: (url: string) => { status: number; body?: unknown } | Error) {
  const calls: { url: string; headers: Record<string, string>; body?: string; method?: string }[] = [];
  const fetch: FetchLike = async (url, init) => {
    calls.push({ url, headers: init.headers, body: init.body, method: init.method });
    const result = answer(url);
    if (result instanceof Error) throw result;
    return { status: result.status, ok: result.status >= 200 && result.status < 300, json: async () => result.body };
  };
  return { fetch, calls };
}

async function statusOf(promise: Promise<unknown>): Promise<number> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(HttpException);
  return (error as HttpException).getStatus();
}

describe('remote principal source (GET /api/auth/me)', () => {
  it("asks the service with the caller's own token and maps the answer", async () => {
    const claims = claimsFor();
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: meBody(claims.userId) }));
    const load = remoteLoader({ url: 'http://auth.internal:3000/' }, fetch);
    await expect(load('t.o.k', claims)).resolves.toEqual({
      id: claims.userId,
      name: 'Ada',
      email: 'a@example.com',
      roles: ['user'],
      permissions: ['contents.view'],
    });
    expect(calls).toEqual([
      {
        url: 'http://auth.internal:3000/api/auth/me',
        headers: expect.objectContaining({ authorization: 'Bearer t.o.k' }),
      },
    ]);
  });

  it('keeps a path prefix of the base URL', async () => {
    const { fetch, calls } = fakeFetch(() => ({ status: 401 }));
    await remoteLoader({ url: 'https://gateway.example/auth' }, fetch)('t.o.k', claimsFor());
    expect(calls[0].url).toBe('https://gateway.example/auth/api/auth/me');
  });

  it('treats a 401 from the service as not authenticated', async () => {
    const { fetch } = fakeFetch(() => ({ status: 401, body: { success: false } }));
    await expect(remoteLoader({ url: 'http://auth' }, fetch)('t.o.k', claimsFor())).resolves.toBeNull();
  });

  it('treats an answer about another user as not authenticated', async () => {
    const { fetch } = fakeFetch(() => ({ status: 200, body: meBody(randomUUID()) }));
    await expect(remoteLoader({ url: 'http://auth' }, fetch)('t.o.k', claimsFor())).resolves.toBeNull();
  });

  it('answers 503, never a pass, when the service fails, is unreachable or answers nonsense', async () => {
    for (const answer of [
      { status: 500 },
      { status: 429 },
      new Error('ECONNREFUSED'),
      { status: 200, body: { success: true, data: { id: 1 } } },
    ]) {
      const { fetch } = fakeFetch(() => answer);
      expect(await statusOf(remoteLoader({ url: 'http://auth' }, fetch)('t.o.k', claimsFor()))).toBe(503);
    }
  });

  it('caches per token for the TTL, so the service is asked once', async () => {
    const claims = claimsFor();
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: meBody(claims.userId) }));
    const source = createPrincipalSource({ permissionsFrom: { url: 'http://auth', cacheTtlMs: 60_000 } }, fetch);
    await source.load('t.o.k', claims);
    await source.load('t.o.k', claims);
    // Another token of the same caller (its own digest) is another entry.
    await source.load('o.t.h', { ...claims, digest: 'digest-of-o.t.h' });
    expect(calls.map((call) => call.headers.authorization)).toEqual(['Bearer t.o.k', 'Bearer o.t.h']);
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(() => createPrincipalSource({ permissionsFrom: { url: 'not a url' } })).toThrow(/not a URL/);
    expect(() => createPrincipalSource({ permissionsFrom: { url: 'file:///etc/passwd' } })).toThrow(/http/);
  });
});

describe('principalFromMeResponse', () => {
  it('accepts the contract body only', () => {
    const id = randomUUID();
    expect(principalFromMeResponse(meBody(id))?.id).toBe(id);
    expect(principalFromMeResponse({ success: false, data: meBody(id).data })).toBeNull();
    expect(
      principalFromMeResponse({ success: true, data: { ...meBody(id).data, permissions: 'contents.view' } }),
    ).toBeNull();
    expect(principalFromMeResponse({ success: true, data: { ...meBody(id).data, roles: [1] } })).toBeNull();
    expect(principalFromMeResponse(null)).toBeNull();
  });
});

describe('query principal source', () => {
  const row = (id: string) => ({
    id,
    name: 'Ada',
    email: 'a@example.com',
    roles: ['user'],
    permissions: ['contents.view'],
  });

  it('reads the database on every request by default, and through a query function too', async () => {
    let asked = 0;
    const claims = claimsFor();
    const source = createPrincipalSource({ permissionsFrom: { query: async ({ userId }) => (asked++, row(userId)) } });
    await source.load('t.o.k', claims);
    await source.load('t.o.k', claims);
    expect(asked).toBe(2);
  });

  it('needs one of url or query, or the introspection client; there is no mode reading the database', () => {
    expect(() => createPrincipalSource({ permissionsFrom: {} } as never)).toThrow(/url.*query/);
    expect(() =>
      createPrincipalSource({ permissionsFrom: { dataSource: { query: async () => [] } } } as never),
    ).toThrow(/url.*query/);
    expect(() => createPrincipalSource({ authUrl: 'http://auth', clientId: 'orders' })).toThrow(/clientSecret/);
  });
});

describe('introspection principal source (POST /api/auth/introspect)', () => {
  const options = { authUrl: 'http://auth:3000/', clientId: 'reports svc', clientSecret: 'p@ss:word' };
  const active = (claims: VerifiedAccessToken) => ({
    active: true,
    sub: claims.userId,
    sid: claims.sessionId,
    exp: 2_000_000_000,
    email: 'a@example.com',
    name: 'Ada',
    roles: ['user'],
    permissions: ['contents.view'],
  });

  it('posts the token as a form with the client credentials (form-encoded, then Basic) and maps the answer', async () => {
    const claims = claimsFor();
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: active(claims) }));
    await expect(introspectionLoader(options, fetch)('t.o.k', claims)).resolves.toEqual({
      id: claims.userId,
      kind: 'person',
      sessionId: claims.sessionId,
      email: 'a@example.com',
      name: 'Ada',
      roles: ['user'],
      permissions: ['contents.view'],
    });
    expect(calls).toEqual([
      {
        url: 'http://auth:3000/api/auth/introspect',
        method: 'POST',
        body: 'token=t.o.k',
        headers: expect.objectContaining({
          authorization: `Basic ${Buffer.from('reports%20svc:p%40ss%3Aword').toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        }),
      },
    ]);
  });

  it('answers null for an inactive token, and for an answer about another user or session', async () => {
    const claims = claimsFor();
    await expect(
      introspectionLoader(options, fakeFetch(() => ({ status: 200, body: { active: false } })).fetch)('t', claims),
    ).resolves.toBeNull();
    const other = { ...active(claims), sid: randomUUID() };
    await expect(
      introspectionLoader(options, fakeFetch(() => ({ status: 200, body: other })).fetch)('t', claims),
    ).resolves.toBeNull();
    // Without local claims (no published keys) the answer itself is the caller.
    await expect(
      introspectionLoader(options, fakeFetch(() => ({ status: 200, body: active(claims) })).fetch)('t', null),
    ).resolves.toMatchObject({
      id: claims.userId,
      sessionId: claims.sessionId,
    });
  });

  it('is 503 when the service refuses the client, fails, times out or answers nonsense; never a pass', async () => {
    for (const answer of [
      { status: 401 },
      { status: 500 },
      { status: 429 },
      new Error('ECONNREFUSED'),
      { status: 200, body: { active: 'yes' } },
    ]) {
      const { fetch } = fakeFetch(() => answer);
      expect(await statusOf(introspectionLoader(options, fetch)('t.o.k', claimsFor()))).toBe(503);
    }
  });

  it('shares one call among concurrent look-ups of one token and reuses it for cacheTtlMs', async () => {
    const claims = claimsFor();
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: active(claims) }));
    const source = createPrincipalSource({ ...options, cacheTtlMs: 60_000 }, fetch);
    await Promise.all(Array.from({ length: 20 }, () => source.load('t.o.k', claims)));
    await source.load('t.o.k', claims);
    expect(calls).toHaveLength(1);
  });
});

describe('CachedPrincipalSource (a short per-token cache of answers)', () => {
  let now: number;
  const clock = { now: () => now };
  const record = (id: string) => ({ id, name: 'Ada', email: 'a@example.com', roles: [], permissions: [] });

  /** A loader that counts its calls and answers with the clock's time as the record's id. */
  function counted(load: () => Promise<ReturnType<typeof record> | null> = async () => record(`at-${now}`)) {
    const wrapper = Object.assign(() => (wrapper.calls++, load()), { calls: 0 });
    return wrapper;
  }

  beforeEach(() => {
    now = 1_000;
  });

  it('reuses an answer until the TTL has passed since its load began', async () => {
    const load = counted();
    const source = new CachedPrincipalSource(load, 200, 10, clock);
    await expect(source.load('t.o.k', null)).resolves.toMatchObject({ id: 'at-1000' });
    now += 199;
    await expect(source.load('t.o.k', null)).resolves.toMatchObject({ id: 'at-1000' });
    now += 2;
    await expect(source.load('t.o.k', null)).resolves.toMatchObject({ id: 'at-1201' });
    expect(load.calls).toBe(2);
  });

  it('shares one load between concurrent look-ups of one token', async () => {
    let release!: (value: ReturnType<typeof record>) => void;
    const load = counted(() => new Promise((resolve) => (release = resolve)));
    const source = new CachedPrincipalSource(load, 1_000, 10, clock);
    const both = Promise.all([source.load('t.o.k', null), source.load('t.o.k', null)]);
    release(record('u'));
    await expect(both).resolves.toEqual([record('u'), record('u')]);
    expect(load.calls).toBe(1);
  });

  it('does not keep a failed load', async () => {
    let fail = true;
    const load = counted(async () => {
      if (fail) throw new Error('down');
      return record('u');
    });
    const source = new CachedPrincipalSource(load, 1_000, 10, clock);
    await expect(source.load('t.o.k', null)).rejects.toThrow('down');
    fail = false;
    await expect(source.load('t.o.k', null)).resolves.toEqual(record('u'));
  });

  it('keeps at most maxEntries tokens, the least recently used going first', async () => {
    const load = counted();
    const source = new CachedPrincipalSource(load, 1_000, 2, clock);
    await source.load('a', null);
    await source.load('b', null);
    await source.load('a', null);
    await source.load('c', null); // `b` was used least recently
    expect(source.size).toBe(2);
    await source.load('a', null);
    expect(load.calls).toBe(3);
    await source.load('b', null);
    expect(load.calls).toBe(4);
  });

  it('with a TTL of 0 loads every time and keeps nothing', async () => {
    const load = counted();
    const source = new CachedPrincipalSource(load, 0, 10, clock);
    await source.load('t.o.k', null);
    await source.load('t.o.k', null);
    expect(load.calls).toBe(2);
    expect(source.size).toBe(0);
  });

  it('refuses nonsense settings', () => {
    expect(() => new CachedPrincipalSource(counted(), -1, 10)).toThrow(/cacheTtlMs/);
    expect(() => new CachedPrincipalSource(counted(), 10, 0)).toThrow(/cacheMaxEntries/);
  });
});
