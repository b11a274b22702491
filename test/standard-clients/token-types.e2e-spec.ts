import { createHmac, createPublicKey, generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { decodeJwt, me, refresh, registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';

const ISSUER = 'https://auth.example.test';
const UNAUTHENTICATED = {
  success: false,
  error: { code: 'UNAUTHENTICATED', message: 'The token is missing, invalid, expired or revoked.' },
};

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** Signs with the service's own HS256 secret: only the claims and header say what the token is. */
const signWithSecret = (header: Record<string, unknown>, payload: Record<string, unknown>) => {
  const head = `${b64url(header)}.${b64url(payload)}`;
  return `${head}.${createHmac('sha256', TEST_JWT_SECRET).update(head).digest('base64url')}`;
};

describe('token types, issuer and audience under HS256', () => {
  const fixture = useTestApp({ env: { ISSUER } });

  it('gives access tokens typ at+jwt, iss and aud = ISSUER; refresh tokens their own typ and aud', async () => {
    const user = await registerUser(fixture.app);
    const access = decodeJwt(user.tokens.access_token);
    const refreshToken = decodeJwt(user.tokens.refresh_token);
    expect(access.header).toMatchObject({ alg: 'HS256', typ: 'at+jwt' });
    expect(access.payload).toMatchObject({ iss: ISSUER, aud: ISSUER, token_type: 'access' });
    expect(refreshToken.header).toMatchObject({ alg: 'HS256', typ: 'refresh+jwt' });
    expect(refreshToken.payload).toMatchObject({ iss: ISSUER, aud: `${ISSUER}/api/auth/refresh` });
    // Any HS256 library given JWT_SECRET and the issuer verifies the access token, and only it.
    expect(
      jwt.verify(user.tokens.access_token, TEST_JWT_SECRET, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: ISSUER,
      }),
    ).toMatchObject({ sub: user.id });
    expect(() =>
      jwt.verify(user.tokens.refresh_token, TEST_JWT_SECRET, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: ISSUER,
      }),
    ).toThrow(/audience/);
  });

  it('refuses an access token of another issuer, for another audience, or without at+jwt, signed with the right secret: 401', async () => {
    const user = await registerUser(fixture.app);
    const { header, payload } = decodeJwt(user.tokens.access_token);
    for (const [changedHeader, changedPayload] of [
      [{}, { iss: 'https://other.example.test' }],
      [{}, { aud: 'https://other.example.test' }],
      [{}, { iss: undefined }],
      [{ typ: 'JWT' }, {}],
      [{ typ: 'refresh+jwt' }, {}],
    ] as const) {
      const forged = signWithSecret({ ...header, ...changedHeader }, { ...payload, ...changedPayload });
      const res = await me(fixture.app, forged);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHENTICATED);
    }
    expect((await me(fixture.app, signWithSecret(header, payload))).status).toBe(200);
  });

  it('refuses a refresh token re-typed as an access token, and an access token at the refresh endpoint: 401', async () => {
    const user = await registerUser(fixture.app);
    const { header, payload } = decodeJwt(user.tokens.refresh_token);
    const retyped = signWithSecret({ ...header, typ: 'at+jwt' }, { ...payload, aud: ISSUER });
    expect((await me(fixture.app, retyped)).status).toBe(401);
    const asRefresh = await refresh(fixture.app, user.tokens.access_token);
    expect(asRefresh.status).toBe(401);
    const retypedAccess = signWithSecret(
      { ...decodeJwt(user.tokens.access_token).header, typ: 'refresh+jwt' },
      { ...decodeJwt(user.tokens.access_token).payload, aud: `${ISSUER}/api/auth/refresh` },
    );
    expect((await refresh(fixture.app, retypedAccess)).status).toBe(401);
  });
});

describe('refresh and temp tokens under ES256: never verifiable with the published keys', () => {
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  const fixture = useTestApp({ env: { ISSUER, JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: key } });

  it('signs access tokens with the published key, refresh tokens with a key the JWKS does not list', async () => {
    const user = await registerUser(fixture.app);
    const jwks = await request(fixture.app.getHttpServer()).get('/.well-known/jwks.json');
    const published = (jwks.body.keys as { kid: string }[]).map((entry) => entry.kid);
    const access = decodeJwt(user.tokens.access_token);
    const refreshToken = decodeJwt(user.tokens.refresh_token);
    expect(access.header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(published).toContain(access.header.kid);
    expect(refreshToken.header).toMatchObject({ alg: 'HS256', typ: 'refresh+jwt' });
    expect(published).not.toContain(refreshToken.header.kid);
    // Nor is it the JWT_SECRET: a holder of the shared secret cannot make refresh tokens of this service.
    expect(() => jwt.verify(user.tokens.refresh_token, TEST_JWT_SECRET, { algorithms: ['HS256'] })).toThrow();
    // The service itself still rotates with it.
    const rotated = await refresh(fixture.app, user.tokens.refresh_token);
    expect(rotated.status).toBe(200);
    expect((await me(fixture.app, rotated.body.data.access_token)).status).toBe(200);
  });
});

describe('why consumers on jsonwebtoken need ES256', () => {
  const key = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const fixture = useTestApp({ env: { ISSUER, JWT_ALGORITHM: 'EdDSA', JWT_PRIVATE_KEY: key } });

  it('jsonwebtoken (under passport-jwt) cannot verify an EdDSA token with the published key', async () => {
    const user = await registerUser(fixture.app);
    const jwks = await request(fixture.app.getHttpServer()).get('/.well-known/jwks.json');
    const publicPem = createPublicKey({ key: jwks.body.keys[0], format: 'jwk' })
      .export({ format: 'pem', type: 'spki' })
      .toString();
    expect(() => jwt.verify(user.tokens.access_token, publicPem, { algorithms: ['EdDSA' as jwt.Algorithm] })).toThrow(
      'Unknown key type "ed25519"',
    );
  });
});
