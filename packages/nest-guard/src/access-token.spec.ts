import { jest } from '@jest/globals';
import { HttpException } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { SignJWT } from 'jose';
import { createHash, createPublicKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { createVerifier } from './auth-guard.module.js';
import { publicVerificationKey, secretVerificationKey, StaticKeySource } from './verification-keys.js';
import { AccessTokenVerifier, bearerToken, extractAccessToken, hasValidTimes, readCookie } from './access-token.js';

const SECRET = 'consumer-spec-secret-0123456789-abcdefghij';
const ISSUER = 'https://auth.example.com';
const AT_JWT = { alg: 'HS256', typ: 'at+jwt' } as const;
const jwt = new JwtService({ secret: SECRET, signOptions: { header: AT_JWT } });
const claims = () => ({
  iss: ISSUER,
  aud: ISSUER,
  sub: randomUUID(),
  sid: randomUUID(),
  email: 'a@example.com',
  token_type: 'access',
  jti: randomUUID(),
});
const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function refusal(promise: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  const error = await promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(HttpException);
  return { status: (error as HttpException).getStatus(), body: (error as HttpException).getResponse() };
}

const UNAUTHENTICATED = {
  status: 401,
  body: {
    success: false,
    error: { code: 'UNAUTHENTICATED', message: 'The token is missing, invalid, expired or revoked.' },
  },
};

describe('extractAccessToken', () => {
  const token = 'aaa.bbb.ccc';

  it('takes the Bearer token first', () => {
    expect(extractAccessToken({ authorization: `Bearer ${token}`, cookie: 'access_token=x.y.z' })).toBe(token);
  });

  it('does not fall back to the cookie when the Authorization header is malformed', () => {
    expect(extractAccessToken({ authorization: 'Basic dXNlcjpwYXNz', cookie: `access_token=${token}` })).toBeNull();
    expect(extractAccessToken({ authorization: `Bearer ${token} extra` })).toBeNull();
  });

  it('reads the access_token cookie from the Cookie header itself', () => {
    expect(extractAccessToken({ cookie: `theme=dark; access_token=${token}; refresh_token=r.r.r` })).toBe(token);
    expect(extractAccessToken({ cookie: `my_access_token=${token}` })).toBeNull();
    expect(extractAccessToken({})).toBeNull();
  });

  it('parses quoted and encoded cookie values, and ignores broken ones', () => {
    expect(readCookie('a="x%20y"', 'a')).toBe('x y');
    expect(readCookie('a=%E0%A4%A', 'a')).toBeNull();
    expect(readCookie('a=', 'a')).toBeNull();
    expect(readCookie('novalue; a=1', 'a')).toBe('1');
  });
});

describe('AccessTokenVerifier', () => {
  const verifier = createVerifier({ secret: SECRET, issuer: ISSUER });

  it('accepts an access token signed with the secret (HS256, its UTF-8 bytes)', async () => {
    const payload = claims();
    const token = await jwt.signAsync(payload, { expiresIn: 60 });
    await expect(verifier.verify(token)).resolves.toEqual({
      userId: payload.sub,
      kind: 'person',
      sessionId: payload.sid,
      email: payload.email,
      digest: createHash('sha256').update(token).digest('hex'),
      expiresAt: expect.any(Number),
      issuedAt: expect.any(Number),
    });
  });

  it('refuses a token signed with another secret', async () => {
    const token = await new JwtService({ secret: `${SECRET}-other`, signOptions: { header: AT_JWT } }).signAsync(
      claims(),
      { expiresIn: 60 },
    );
    expect(await refusal(verifier.verify(token))).toEqual(UNAUTHENTICATED);
  });

  it('refuses an expired token', async () => {
    const token = await jwt.signAsync({ ...claims(), exp: Math.floor(Date.now() / 1000) - 10 });
    expect(await refusal(verifier.verify(token))).toEqual(UNAUTHENTICATED);
  });

  it('refuses alg none and any algorithm other than HS256, even with the right secret', async () => {
    const none = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ ...claims(), exp: Math.floor(Date.now() / 1000) + 60 })}.`;
    expect(await refusal(verifier.verify(none))).toEqual(UNAUTHENTICATED);
    const hs512 = await jwt.signAsync(claims(), {
      expiresIn: 60,
      algorithm: 'HS512',
      header: { alg: 'HS512', typ: 'at+jwt' },
    });
    expect(await refusal(verifier.verify(hs512))).toEqual(UNAUTHENTICATED);
  });

  it('refuses refresh and 2FA tokens, and tokens without a session or expiry', async () => {
    for (const tokenType of ['refresh', '2fa', undefined]) {
      const token = await jwt.signAsync({ ...claims(), token_type: tokenType }, { expiresIn: 60 });
      expect(await refusal(verifier.verify(token))).toEqual(UNAUTHENTICATED);
    }
    const { sid: _sid, ...withoutSession } = claims();
    expect(await refusal(verifier.verify(await jwt.signAsync(withoutSession, { expiresIn: 60 })))).toEqual(
      UNAUTHENTICATED,
    );
    expect(await refusal(verifier.verify(await jwt.signAsync(claims())))).toEqual(UNAUTHENTICATED);
  });

  it('refuses a token without the at+jwt type, of another issuer, or for another audience', async () => {
    const plain = await new JwtService({ secret: SECRET }).signAsync(claims(), { expiresIn: 60 });
    expect(await refusal(verifier.verify(plain))).toEqual(UNAUTHENTICATED);
    const refreshTyped = await jwt.signAsync(claims(), { expiresIn: 60, header: { alg: 'HS256', typ: 'refresh+jwt' } });
    expect(await refusal(verifier.verify(refreshTyped))).toEqual(UNAUTHENTICATED);
    for (const changed of [
      { iss: 'https://evil.example.com' },
      { aud: 'https://other.example.com' },
      { iss: undefined },
    ]) {
      const token = await jwt.signAsync({ ...claims(), ...changed }, { expiresIn: 60 });
      expect(await refusal(verifier.verify(token))).toEqual(UNAUTHENTICATED);
    }
    const otherAudience = createVerifier({ secret: SECRET, issuer: ISSUER, audience: 'https://orders.example.com' });
    const forOrders = await jwt.signAsync({ ...claims(), aud: 'https://orders.example.com' }, { expiresIn: 60 });
    await expect(otherAudience.verify(forOrders)).resolves.toMatchObject({ email: 'a@example.com' });
    expect(await refusal(otherAudience.verify(await jwt.signAsync(claims(), { expiresIn: 60 })))).toEqual(
      UNAUTHENTICATED,
    );
    // The auth service's introspection takes any audience, never another issuer or type.
    const introspecting = new AccessTokenVerifier(new StaticKeySource([secretVerificationKey(SECRET)]), {
      issuer: ISSUER,
      anyAudience: true,
    });
    await expect(introspecting.verify(forOrders)).resolves.toMatchObject({ email: 'a@example.com' });
    expect(await refusal(introspecting.verify(refreshTyped))).toEqual(UNAUTHENTICATED);
    const otherIssuer = await jwt.signAsync({ ...claims(), iss: 'https://evil.example.com' }, { expiresIn: 60 });
    expect(await refusal(introspecting.verify(otherIssuer))).toEqual(UNAUTHENTICATED);
  });

  it('refuses a token without iat, or issued more than 60 s ahead; accepts 60 s of clock skew', async () => {
    const now = Math.floor(Date.now() / 1000);
    const withoutIat = await jwt.signAsync({ ...claims(), exp: now + 60 }, { noTimestamp: true });
    expect(await refusal(verifier.verify(withoutIat))).toEqual(UNAUTHENTICATED);
    const anHourAhead = await jwt.signAsync({ ...claims(), iat: now + 3600, exp: now + 4500 });
    expect(await refusal(verifier.verify(anHourAhead))).toEqual(UNAUTHENTICATED);
    const slightlyAhead = await jwt.signAsync({ ...claims(), iat: now + 50, exp: now + 950 });
    await expect(verifier.verify(slightlyAhead)).resolves.toMatchObject({ email: 'a@example.com' });
  });

  it('refuses garbage', async () => {
    expect(await refusal(verifier.verify('not-a-token'))).toEqual(UNAUTHENTICATED);
  });

  it('needs a secret', () => {
    expect(() => createVerifier({ secret: '' })).toThrow(/secret/);
  });
});

describe('bearerToken', () => {
  it.each([['Bearer'], ['bearer'], ['BEARER'], ['bEaReR']])('reads the scheme %s in any case (RFC 7235)', (scheme) => {
    expect(bearerToken(`${scheme} a.b.c`)).toBe('a.b.c');
  });

  it('refuses other schemes and malformed credentials', () => {
    for (const header of ['Basic a.b.c', 'Bearer', 'Bearer a.b', 'Bearer a.b.c d', 'Bearera.b.c'])
      expect(bearerToken(header)).toBeNull();
  });
});

describe('hasValidTimes', () => {
  const now = 1_800_000_000;
  it.each([
    [{ iat: now, exp: now + 900 }, true],
    [{ iat: now + 60, exp: now + 960 }, true],
    [{ iat: now + 61, exp: now + 961 }, false],
    [{ exp: now + 900 }, false],
    [{ iat: now }, false],
    [{ iat: String(now), exp: now + 900 }, false],
    [{ iat: now, exp: Number.NaN }, false],
  ])('%j: %s', (claims, valid) => {
    expect(hasValidTimes(claims, now * 1000)).toBe(valid);
  });
});

describe('AccessTokenVerifier with public keys (ES256, EdDSA)', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicPem = createPublicKey(privateKey).export({ format: 'pem', type: 'spki' }).toString();
  const verifier = createVerifier({
    publicKeys: [publicPem],
    issuer: ISSUER,
    permissionsFrom: { query: async () => null },
  });
  const now = () => Math.floor(Date.now() / 1000);
  const body = () => ({ ...claims(), iat: now(), exp: now() + 60 });

  it('accepts a token of the key, with or without its kid', async () => {
    const kid = publicVerificationKey(publicPem).kid;
    const withKid = await new SignJWT(body()).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).sign(privateKey);
    await expect(verifier.verify(withKid)).resolves.toMatchObject({ email: 'a@example.com' });
    const withoutKid = await new SignJWT(body()).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' }).sign(privateKey);
    await expect(verifier.verify(withoutKid)).resolves.toMatchObject({ email: 'a@example.com' });
  });

  it('refuses the public key used as an HMAC secret, and another pair under the same kid', async () => {
    const kid = publicVerificationKey(publicPem).kid;
    const confused = await new SignJWT(body())
      .setProtectedHeader({ alg: 'HS256', kid, typ: 'at+jwt' })
      .sign(new TextEncoder().encode(publicPem));
    expect(await refusal(verifier.verify(confused))).toEqual(UNAUTHENTICATED);
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const forged = await new SignJWT(body()).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).sign(other);
    expect(await refusal(verifier.verify(forged))).toEqual(UNAUTHENTICATED);
  });
});

describe('AccessTokenVerifier: the tokens it has verified', () => {
  /** A key source that counts how often the verifier needed a key: once per signature checked. */
  function countingVerifier(maxEntries?: number) {
    const keys = new StaticKeySource([secretVerificationKey(SECRET)]);
    let lookups = 0;
    const counted = {
      candidates: (algorithm: string, kid: string | undefined) => (lookups++, keys.candidates(algorithm, kid)),
    };
    return { verifier: new AccessTokenVerifier(counted, { issuer: ISSUER }, maxEntries), lookups: () => lookups };
  }

  afterEach(() => jest.useRealTimers());

  it('checks a token once, then answers with the same claims until it expires', async () => {
    const { verifier, lookups } = countingVerifier();
    const token = await jwt.signAsync(claims(), { expiresIn: 60 });
    const first = await verifier.verify(token);
    for (let i = 0; i < 5; i++) expect(await verifier.verify(token)).toBe(first);
    expect(lookups()).toBe(1);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('refuses a kept token from the very instant of its exp, as a first verification does', async () => {
    const exp = Math.floor(Date.now() / 1000) + 120;
    const token = await jwt.signAsync({ ...claims(), exp });
    jest.useFakeTimers({ now: exp * 1000 - 60_000, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const { verifier, lookups } = countingVerifier();
    await expect(verifier.verify(token)).resolves.toMatchObject({ expiresAt: exp * 1000 });
    jest.setSystemTime(exp * 1000 - 1);
    await expect(verifier.verify(token)).resolves.toMatchObject({ expiresAt: exp * 1000 });
    expect(lookups()).toBe(1);
    jest.setSystemTime(exp * 1000);
    expect(await refusal(verifier.verify(token))).toEqual(UNAUTHENTICATED);
    // A verifier that never saw the token judges the same instant the same way.
    expect(await refusal(countingVerifier().verifier.verify(token))).toEqual(UNAUTHENTICATED);
  });

  it('drops the tokens of a revoked session or user, and all of them when keys rotate or the stream was lost', async () => {
    const { verifier, lookups } = countingVerifier();
    const user = randomUUID();
    const [sessionA, sessionB, other] = await Promise.all([
      jwt.signAsync({ ...claims(), sub: user }, { expiresIn: 60 }),
      jwt.signAsync({ ...claims(), sub: user }, { expiresIn: 60 }),
      jwt.signAsync(claims(), { expiresIn: 60 }),
    ]);
    const verifyAll = () => Promise.all([sessionA, sessionB, other].map((token) => verifier.verify(token)));
    const [a] = await verifyAll();
    expect(lookups()).toBe(3);
    verifier.forget({ name: 'session-revoked', sid: a!.sessionId, sub: user });
    await verifyAll();
    expect(lookups()).toBe(4);
    verifier.forget({ name: 'credential-change', sub: user, notBefore: Math.floor(Date.now() / 1000) });
    await verifyAll();
    expect(lookups()).toBe(6);
    verifier.forget({ name: 'assignment-change', sub: user });
    verifier.forget({ name: 'role-change', role: 'user' });
    await verifyAll();
    expect(lookups()).toBe(6);
    verifier.forget({ name: 'keys-rotated' });
    await verifyAll();
    expect(lookups()).toBe(9);
    verifier.forget({ name: 'reset' });
    await verifyAll();
    expect(lookups()).toBe(12);
  });

  it('keeps no refused token, and at most cacheMaxEntries verified ones', async () => {
    const { verifier, lookups } = countingVerifier(2);
    const foreign = await jwt.signAsync({ ...claims(), aud: 'https://elsewhere.example.com' }, { expiresIn: 60 });
    await refusal(verifier.verify(foreign));
    await refusal(verifier.verify(foreign));
    expect(lookups()).toBe(2);
    for (let i = 0; i < 5; i++) await verifier.verify(await jwt.signAsync(claims(), { expiresIn: 60 }));
    expect(verifier.size).toBe(2);
    expect(() => new AccessTokenVerifier(new StaticKeySource([]), {}, 0)).toThrow(/cacheMaxEntries/);
  });

  it("names a client's own token (client_id = sub) a service caller, and any other token a person", async () => {
    const { verifier } = countingVerifier();
    const service = await jwt.signAsync({ ...claims(), sub: 'billing', client_id: 'billing' }, { expiresIn: 60 });
    await expect(verifier.verify(service)).resolves.toMatchObject({
      userId: 'billing',
      kind: 'service',
      clientId: 'billing',
    });
    const forUser = await jwt.signAsync({ ...claims(), client_id: 'portal' }, { expiresIn: 60 });
    await expect(verifier.verify(forUser)).resolves.toMatchObject({ kind: 'person', clientId: 'portal' });
    await expect(verifier.verify(await jwt.signAsync(claims(), { expiresIn: 60 }))).resolves.toMatchObject({
      kind: 'person',
    });
  });
});
