import { SignJWT } from 'jose';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { securityEventClaims, verifySecurityEvent } from './security-event-token.js';
import { joseKey, publicVerificationKey, secretVerificationKey, StaticKeySource } from './verification-keys.js';

const SECRET = 'an-hs256-secret-of-the-auth-service-0123456789';
const hmac = secretVerificationKey(SECRET);
const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ec = publicVerificationKey(pair.publicKey);

const sign = (
  claims: Record<string, unknown>,
  header: Record<string, unknown> = { alg: 'HS256', typ: 'secevent+jwt', kid: hmac.kid },
  key = joseKey(hmac.key),
) =>
  new SignJWT({ jti: randomUUID(), ...claims })
    .setProtectedHeader(header as never)
    .setIssuedAt()
    .sign(key as never);

const revoked = securityEventClaims('session-revoked', { sid: 's-1', sub: 'u-1' });

describe('verifySecurityEvent', () => {
  it('accepts a SET of the service key (HS256 with the secret, ES256 with the public key)', async () => {
    await expect(verifySecurityEvent(await sign(revoked), new StaticKeySource([hmac]))).resolves.toEqual({
      name: 'session-revoked',
      sid: 's-1',
      sub: 'u-1',
    });
    const es = await sign(revoked, { alg: 'ES256', typ: 'secevent+jwt', kid: ec.kid }, pair.privateKey as never);
    await expect(verifySecurityEvent(es, new StaticKeySource([ec]))).resolves.toMatchObject({
      name: 'session-revoked',
    });
    const change = securityEventClaims('credential-change', { sub: 'u-1', not_before: 1700000000 });
    await expect(verifySecurityEvent(await sign(change), new StaticKeySource([hmac]))).resolves.toEqual({
      name: 'credential-change',
      sub: 'u-1',
      notBefore: 1700000000,
    });
  });

  it('refuses an unsigned SET, another key, the public key as an HMAC secret, a wrong typ, an access token', async () => {
    const keys = new StaticKeySource([hmac, ec]);
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${encode({ alg: 'none', typ: 'secevent+jwt' })}.${encode({ iat: 1, jti: 'x', ...revoked })}.`;
    const other = await sign(revoked, undefined, joseKey(secretVerificationKey('another-secret-0123456789').key));
    const pem = pair.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const confused = await sign(
      revoked,
      { alg: 'HS256', typ: 'secevent+jwt', kid: ec.kid },
      joseKey(secretVerificationKey(pem).key),
    );
    const wrongTyp = await sign(revoked, { alg: 'HS256', typ: 'JWT', kid: hmac.kid });
    const access = await sign(
      { sub: 'u-1', sid: 's-1', token_type: 'access' },
      { alg: 'HS256', typ: 'JWT', kid: hmac.kid },
    );
    for (const jws of [unsigned, other, confused, wrongTyp, access, 'not-a-jws'])
      await expect(verifySecurityEvent(jws, keys)).resolves.toBeNull();
  });

  it('refuses an event with members of the wrong type, two events, or an unknown event', async () => {
    const keys = new StaticKeySource([hmac]);
    const bad = [
      securityEventClaims('session-revoked', { sid: 1, sub: 'u' }),
      securityEventClaims('credential-change', { sub: 'u', not_before: '1' }),
      { events: { ...(revoked.events as object), ...(securityEventClaims('reset', {}).events as object) } },
      { events: { 'urn:example:other': {} } },
    ];
    for (const claims of bad) await expect(verifySecurityEvent(await sign(claims), keys)).resolves.toBeNull();
  });
});
