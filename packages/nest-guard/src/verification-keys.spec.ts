import { jest } from '@jest/globals';
import { createPublicKey, generateKeyPairSync, type webcrypto } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import {
  DiscoveredIssuer,
  joseKey,
  JwksKeySource,
  KeysUnavailableError,
  keyThumbprint,
  publicVerificationKey,
  secretVerificationKey,
  type FetchLike,
} from './verification-keys.js';

function publishedKey() {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = keyThumbprint(publicKey);
  return { kid, jwk: { ...(publicKey.export({ format: 'jwk' }) as object), kid, alg: 'ES256', use: 'sig' } };
}

function jwksFetch(answer: () => unknown) {
  let calls = 0;
  const fetch: FetchLike = async () => {
    calls++;
    const body = answer();
    if (body instanceof Error) throw body;
    return { status: 200, ok: true, json: async () => body };
  };
  return { fetch, calls: () => calls };
}

describe("JwksKeySource (jose's remote key set)", () => {
  let now: number;
  beforeEach(() => {
    now = Date.now();
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('fetches the keys once, finds a key by kid, and leaves HS256 tokens to introspection', async () => {
    const key = publishedKey();
    const { fetch, calls } = jwksFetch(() => ({ keys: [key.jwk] }));
    const source = new JwksKeySource('http://auth/.well-known/jwks.json', 1000, fetch);
    expect((await source.candidates('ES256', key.kid))?.map((found) => found.kid)).toEqual([key.kid]);
    expect(await source.candidates('HS256', undefined)).toBeNull();
    expect(await source.candidates('EdDSA', key.kid)).toBeNull();
    expect(calls()).toBe(1);
  });

  it('gives a token without kid every published key of its algorithm', async () => {
    const first = publishedKey();
    const second = publishedKey();
    const { fetch } = jwksFetch(() => ({ keys: [first.jwk, second.jwk] }));
    const source = new JwksKeySource('http://auth/jwks', 1000, fetch);
    expect(await source.candidates('ES256', undefined)).toHaveLength(2);
  });

  it('verifies with the key it found', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const kid = keyThumbprint(publicKey);
    const { fetch } = jwksFetch(() => ({ keys: [{ ...(publicKey.export({ format: 'jwk' }) as object), kid }] }));
    const source = new JwksKeySource('http://auth/jwks', 1000, fetch);
    const token = await new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'EdDSA', kid }).sign(privateKey);
    const [found] = (await source.candidates('EdDSA', kid))!;
    expect((await jwtVerify(token, joseKey(found.key), { algorithms: ['EdDSA'] })).payload.sub).toBe('u');
  });

  it('refetches for an unknown kid at most every 30 s, and leaves a still-unknown kid to introspection', async () => {
    const first = publishedKey();
    const rotated = publishedKey();
    let published = [first.jwk];
    const { fetch, calls } = jwksFetch(() => ({ keys: published }));
    const source = new JwksKeySource('http://auth/jwks', 1000, fetch);
    await source.candidates('ES256', first.kid);
    published = [first.jwk, rotated.jwk];
    expect(await source.candidates('ES256', rotated.kid)).toBeNull();
    expect(calls()).toBe(1);
    now += 31_000;
    expect((await source.candidates('ES256', rotated.kid))?.[0].kid).toBe(rotated.kid);
    expect(await source.candidates('ES256', 'forged')).toBeNull();
    expect(calls()).toBe(2);
  });

  it('never takes a secret or a private key from the JWKS', async () => {
    const { fetch } = jwksFetch(() => ({
      keys: [
        { kty: 'oct', k: 'c2VjcmV0', kid: 'hmac', alg: 'HS256' },
        { ...publishedKey().jwk, kid: 'with-d', d: 'AAAA' },
      ],
    }));
    const source = new JwksKeySource('http://auth/jwks', 1000, fetch);
    expect(await source.candidates('HS256', 'hmac')).toBeNull();
    expect(await source.candidates('ES256', 'with-d')).toBeNull();
  });

  it('is unavailable while it has never had the keys, and keeps the keys it had when a refetch fails', async () => {
    let fail = true;
    const key = publishedKey();
    const { fetch, calls } = jwksFetch(() => (fail ? new Error('ECONNREFUSED') : { keys: [key.jwk] }));
    const source = new JwksKeySource('http://auth/jwks', 1000, fetch);
    await expect(source.candidates('ES256', key.kid)).rejects.toBeInstanceOf(KeysUnavailableError);
    fail = false;
    expect(await source.candidates('ES256', key.kid)).toHaveLength(1);
    fail = true;
    now += 10 * 60_000;
    expect(await source.candidates('ES256', key.kid)).toHaveLength(1);
    // The stale set was asked for again (and failed): the old keys answered meanwhile.
    expect(calls()).toBe(3);
  });

  it('is unavailable, never a pass, when the service answers something that is not a key set', async () => {
    const { fetch } = jwksFetch(() => ({ keys: 'none' }));
    const source = new JwksKeySource('http://auth/jwks', 1000, fetch);
    await expect(source.candidates('ES256', 'any')).rejects.toBeInstanceOf(KeysUnavailableError);
  });
});

describe('verification keys', () => {
  it('gives a key its RFC 7638 thumbprint as kid, the same for its private and public halves', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    expect(publicVerificationKey(privateKey).kid).toBe(publicVerificationKey(createPublicKey(privateKey)).kid);
    expect(publicVerificationKey(privateKey).algorithm).toBe('EdDSA');
    expect(secretVerificationKey('s'.repeat(40)).kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses keys of other curves and types', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    expect(() => publicVerificationKey(publicKey)).toThrow(/P-256/);
    expect(() => secretVerificationKey('')).toThrow(/non-empty/);
  });
});

describe('joseKey', () => {
  it('turns an HMAC secret into one CryptoKey, made once, that verifies what the secret signed', async () => {
    const { key } = secretVerificationKey('a-secret-of-some-length-0123456789');
    const first = joseKey(key);
    expect(first).toBe(joseKey(key));
    expect((first as webcrypto.CryptoKey).algorithm).toMatchObject({ name: 'HMAC', hash: { name: 'SHA-256' } });
    const token = await new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'HS256' }).sign(key);
    expect((await jwtVerify(token, first, { algorithms: ['HS256'] })).payload.sub).toBe('u');
    const other = secretVerificationKey('another-secret-of-some-length-0123').key;
    await expect(jwtVerify(token, joseKey(other), { algorithms: ['HS256'] })).rejects.toThrow();
  });

  it('hands public keys to jose as they are', () => {
    const { key } = publicVerificationKey(generateKeyPairSync('ed25519').publicKey);
    expect(joseKey(key)).toBe(key);
  });
});

describe('DiscoveredIssuer', () => {
  it('reads the issuer of the discovery document once, shared by concurrent look-ups', async () => {
    const { fetch, calls } = jwksFetch(() => ({ issuer: 'https://auth.example.com', jwks_uri: 'x' }));
    const issuer = new DiscoveredIssuer('http://auth/.well-known/openid-configuration', 1000, fetch);
    expect(await Promise.all([issuer.get(), issuer.get()])).toEqual([
      'https://auth.example.com',
      'https://auth.example.com',
    ]);
    expect(await issuer.get()).toBe('https://auth.example.com');
    expect(calls()).toBe(1);
  });

  it('is unavailable (never a pass) while the document cannot be read, and tries again later', async () => {
    let answer: unknown = new Error('connection refused');
    const { fetch, calls } = jwksFetch(() => answer);
    const issuer = new DiscoveredIssuer('http://auth/.well-known/openid-configuration', 1000, fetch);
    await expect(issuer.get()).rejects.toBeInstanceOf(KeysUnavailableError);
    answer = { jwks_uri: 'no issuer' };
    await expect(issuer.get()).rejects.toBeInstanceOf(KeysUnavailableError);
    answer = { issuer: 'https://auth.example.com' };
    await expect(issuer.get()).resolves.toBe('https://auth.example.com');
    expect(calls()).toBe(3);
  });
});
