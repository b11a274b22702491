import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomUUID,
  sign as signWithKey,
  type KeyObject,
} from 'node:crypto';
import request from 'supertest';
import { decodeJwt, me, registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { createTestApp } from '../support/test-app.js';

const UNAUTHENTICATED = {
  success: false,
  error: { code: 'UNAUTHENTICATED', message: 'The token is missing, invalid, expired or revoked.' },
};
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

function privatePem(algorithm: 'ES256' | 'EdDSA'): string {
  const { privateKey } =
    algorithm === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

function publicPem(privateKeyPem: string): string {
  return createPublicKey(privateKeyPem).export({ format: 'pem', type: 'spki' }).toString();
}

/** Signs a JWS by hand, so the test does not trust the service's own signing code. */
function signToken(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: KeyObject | string | Buffer,
): string {
  const input = `${b64(header)}.${b64(payload)}`;
  let signature: Buffer;
  if (header.alg === 'HS256')
    signature = createHmac('sha256', key as Buffer)
      .update(input)
      .digest();
  else if (header.alg === 'ES256')
    signature = signWithKey('sha256', Buffer.from(input), { key: key as KeyObject, dsaEncoding: 'ieee-p1363' });
  else signature = signWithKey(null, Buffer.from(input), key as KeyObject);
  return `${input}.${signature.toString('base64url')}`;
}

describe.each(['ES256', 'EdDSA'] as const)('signing with %s', (algorithm) => {
  const key = privatePem(algorithm);
  let app: NestFastifyApplication;

  const fixture = useTestApp({ env: { JWT_ALGORITHM: algorithm, JWT_PRIVATE_KEY: key } });
  beforeAll(() => void ({ app } = fixture));

  it('signs with the private key, names the key in `kid`, and publishes its public key', async () => {
    const user = await registerUser(app);
    const { header } = decodeJwt(user.tokens.access_token);
    expect(header).toEqual({ alg: algorithm, typ: 'at+jwt', kid: expect.any(String) });
    expect((await me(app, user.tokens.access_token)).status).toBe(200);
    const jwks = await request(app.getHttpServer()).get('/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    // The token key first, then the OpenID provider's RS256 ID-token key.
    expect(jwks.body.keys.filter((key: { kty: string }) => key.kty !== 'RSA')).toHaveLength(1);
    expect(jwks.body.keys[0]).toMatchObject({ kid: header.kid, alg: algorithm, use: 'sig' });
    expect(jwks.body.keys[0]).not.toHaveProperty('d');
    expect(createPublicKey({ key: jwks.body.keys[0], format: 'jwk' }).export({ format: 'pem', type: 'spki' })).toBe(
      publicPem(key),
    );
  });

  it('refuses a token signed by the private key of another pair, even under the right kid', async () => {
    const user = await registerUser(app);
    const { header, payload } = decodeJwt(user.tokens.access_token);
    const other = privatePem(algorithm);
    const forged = signToken(header, payload, createPrivateKey(other));
    const res = await me(app, forged);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHENTICATED);
  });

  it('refuses the public key used as an HMAC secret (key confusion), alg none, and the JWT secret', async () => {
    const user = await registerUser(app);
    const { header, payload } = decodeJwt(user.tokens.access_token);
    for (const secret of [publicPem(key), publicPem(key).trim()]) {
      const confused = signToken({ ...header, alg: 'HS256' }, payload, Buffer.from(secret));
      expect((await me(app, confused)).status).toBe(401);
      const withoutKid = signToken({ alg: 'HS256', typ: 'JWT' }, payload, Buffer.from(secret));
      expect((await me(app, withoutKid)).status).toBe(401);
    }
    expect((await me(app, `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`)).status).toBe(401);
    const withSecret = signToken(
      { alg: 'HS256', typ: 'JWT' },
      payload,
      Buffer.from('test-secret-0123456789-abcdefghijklmnopqrstuvwxyz'),
    );
    expect((await me(app, withSecret)).status).toBe(401);
  });
});

describe('key rotation', () => {
  it('ES256: tokens of the previous key keep working, tokens of the new key work at once, and the JWKS lists both', async () => {
    const oldKey = privatePem('ES256');
    const newKey = privatePem('ES256');
    const before = await createTestApp({ env: { JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: oldKey } });
    const after = await createTestApp({
      env: { JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: newKey, JWT_PREVIOUS_PUBLIC_KEYS: publicPem(oldKey) },
    });
    try {
      const oldUser = await registerUser(before);
      const newUser = await registerUser(after);
      expect(decodeJwt(oldUser.tokens.access_token).header.kid).not.toBe(
        decodeJwt(newUser.tokens.access_token).header.kid,
      );
      expect((await me(after, oldUser.tokens.access_token)).status).toBe(200);
      expect((await me(after, newUser.tokens.access_token)).status).toBe(200);
      // The old key's refresh token still refreshes, now into a token of the new key.
      const refreshed = await request(after.getHttpServer())
        .post('/api/auth/refresh')
        .send({ refresh_token: oldUser.tokens.refresh_token });
      expect(refreshed.status).toBe(200);
      expect(decodeJwt(refreshed.body.data.access_token).header.kid).toBe(
        decodeJwt(newUser.tokens.access_token).header.kid,
      );
      // An instance that never heard of the new key refuses its tokens.
      expect((await me(before, newUser.tokens.access_token)).status).toBe(401);
      const jwks = await request(after.getHttpServer()).get('/.well-known/jwks.json');
      // Beside the OpenID provider's RS256 ID-token key.
      const tokenKeys = jwks.body.keys.filter((jwk: { kty: string }) => jwk.kty !== 'RSA');
      expect(tokenKeys.map((jwk: { kid: string }) => jwk.kid).sort()).toEqual(
        [decodeJwt(oldUser.tokens.access_token).header.kid, decodeJwt(newUser.tokens.access_token).header.kid].sort(),
      );
    } finally {
      await Promise.all([before.close(), after.close()]);
    }
  });

  it('HS256: JWT_PREVIOUS_SECRETS keeps the previous secret valid; without it its tokens are refused', async () => {
    const oldSecret = `old-${randomUUID()}-${randomUUID()}`;
    const newSecret = `new-${randomUUID()}-${randomUUID()}`;
    const before = await createTestApp({ env: { JWT_SECRET: oldSecret } });
    const after = await createTestApp({ env: { JWT_SECRET: newSecret, JWT_PREVIOUS_SECRETS: oldSecret } });
    const forgotten = await createTestApp({ env: { JWT_SECRET: newSecret } });
    try {
      const oldUser = await registerUser(before);
      const newUser = await registerUser(after);
      expect((await me(after, oldUser.tokens.access_token)).status).toBe(200);
      expect((await me(after, newUser.tokens.access_token)).status).toBe(200);
      expect((await me(forgotten, oldUser.tokens.access_token)).status).toBe(401);
      // No secret is published: the only key is the OpenID provider's RS256 ID-token key.
      const { keys } = (await request(after.getHttpServer()).get('/.well-known/jwks.json')).body;
      expect(keys.map((key: { kty: string }) => key.kty)).toEqual(['RSA']);
    } finally {
      await Promise.all([before.close(), after.close(), forgotten.close()]);
    }
  });
});
