import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHmac, randomUUID } from 'node:crypto';
import request from 'supertest';
import { decodeJwt, me, refresh, registerUser, type RegisteredUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** A JWT built by hand, so the header can say anything. `alg: none` gets an empty signature. */
function forge(payload: Record<string, unknown>, options: { alg?: string; secret?: string } = {}): string {
  const alg = options.alg ?? 'HS256';
  const head = `${b64url({ alg, typ: 'JWT' })}.${b64url(payload)}`;
  const hmac = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[alg];
  if (!hmac) return `${head}.`;
  return `${head}.${createHmac(hmac, options.secret ?? TEST_JWT_SECRET)
    .update(head)
    .digest('base64url')}`;
}

/** Keeps the header and signature of `token` but swaps its claims. */
function withChangedPayload(token: string, changes: Record<string, unknown>): string {
  const [header, , signature] = token.split('.');
  return `${header}.${b64url({ ...decodeJwt(token).payload, ...changes })}.${signature}`;
}

const UNAUTHENTICATED = { success: false, error: { code: 'UNAUTHENTICATED', message: expect.any(String) } };

describe('forged and misplaced tokens', () => {
  let app: NestFastifyApplication;
  let victim: RegisteredUser;
  let other: RegisteredUser;
  let accessClaims: Record<string, unknown>;

  const fixture = useTestApp();
  beforeAll(async () => {
    app = fixture.app;
    victim = await registerUser(app);
    other = await registerUser(app);
    accessClaims = decodeJwt(victim.tokens.access_token).payload;
  });

  const server = () => app.getHttpServer();
  const now = () => Math.floor(Date.now() / 1000);

  /** Access-token forgeries: each would name the victim's live session if it were accepted. */
  const accessForgeries: [string, () => string][] = [
    ['alg none', () => forge(accessClaims, { alg: 'none' })],
    ['alg "None"', () => forge(accessClaims, { alg: 'None' })],
    ['another secret', () => forge(accessClaims, { secret: 'another-secret-0123456789-abcdefghijklmnop' })],
    ['HS384 with the right secret', () => forge(accessClaims, { alg: 'HS384' })],
    ['HS512 with the right secret', () => forge(accessClaims, { alg: 'HS512' })],
    [
      'a changed payload (sub of another user)',
      () => withChangedPayload(victim.tokens.access_token, { sub: other.id }),
    ],
    [
      'a changed payload (exp pushed out)',
      () => withChangedPayload(victim.tokens.access_token, { exp: now() + 86400 }),
    ],
    ['the refresh token', () => victim.tokens.refresh_token],
    ['token_type "2fa"', () => forge({ ...accessClaims, token_type: '2fa', jti: randomUUID() })],
    ['no token_type', () => forge({ ...accessClaims, token_type: undefined, jti: randomUUID() })],
    [
      'a correctly signed token of an unknown session',
      () => forge({ ...accessClaims, sid: randomUUID(), jti: randomUUID() }),
    ],
    [
      "a correctly signed token naming another user in the victim's session",
      () => forge({ ...accessClaims, sub: other.id }),
    ],
    ['an expired, correctly signed token', () => forge({ ...accessClaims, iat: now() - 2000, exp: now() - 1000 })],
    ['garbage', () => 'garbage'],
    ['three garbage segments', () => 'abc.def.ghi'],
    ['an empty string', () => ''],
  ];

  it('accepts the genuine token (the baseline every forgery is compared with)', async () => {
    expect((await me(app, victim.tokens.access_token)).status).toBe(200);
    const cookie = await request(server())
      .get('/api/auth/me')
      .set('cookie', `access_token=${victim.tokens.access_token}`);
    expect(cookie.status).toBe(200);
  });

  it.each(accessForgeries)('refuses %s as Bearer with 401 UNAUTHENTICATED', async (_label, make) => {
    const res = await request(server()).get('/api/auth/me').set('authorization', `Bearer ${make()}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHENTICATED);
  });

  it.each(accessForgeries)('refuses %s in the access_token cookie with 401 UNAUTHENTICATED', async (_label, make) => {
    const res = await request(server()).get('/api/auth/me').set('cookie', `access_token=${make()}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHENTICATED);
  });

  it.each([
    ['no Authorization header', () => undefined],
    ['a Basic header', () => `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['"Bearer" without a token', () => 'Bearer'],
    ['the token without "Bearer"', () => victim.tokens.access_token],
    ['another scheme with the token', () => `Token ${victim.tokens.access_token}`],
  ])('refuses %s with 401 UNAUTHENTICATED', async (_label, header: () => string | undefined) => {
    const req = request(server()).get('/api/auth/me');
    const value = header();
    if (value !== undefined) req.set('authorization', value);
    const res = await req;
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHENTICATED);
  });

  it('refuses forgeries on logout too, and they do not end the session', async () => {
    for (const [, make] of accessForgeries) {
      const res = await request(server()).post('/api/auth/logout').set('authorization', `Bearer ${make()}`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHENTICATED);
    }
    expect((await me(app, victim.tokens.access_token)).status).toBe(200);
  });

  describe('Bearer wins over the cookie', () => {
    it('refuses a forged Bearer even with a valid cookie', async () => {
      const res = await request(server())
        .get('/api/auth/me')
        .set('authorization', `Bearer ${forge(accessClaims, { alg: 'HS512' })}`)
        .set('cookie', `access_token=${victim.tokens.access_token}`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHENTICATED);
    });

    it("accepts a valid Bearer with a forged cookie, and answers as the Bearer's user", async () => {
      const res = await request(server())
        .get('/api/auth/me')
        .set('authorization', `Bearer ${victim.tokens.access_token}`)
        .set('cookie', `access_token=${forge(accessClaims, { alg: 'none' })}`);
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(victim.id);
    });

    it("uses the Bearer's identity when the cookie holds another user's valid token", async () => {
      const res = await request(server())
        .get('/api/auth/me')
        .set('authorization', `Bearer ${other.tokens.access_token}`)
        .set('cookie', `access_token=${victim.tokens.access_token}`);
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(other.id);
    });
  });

  describe('at /api/auth/refresh', () => {
    // A user of its own, whose refresh token must survive every forgery below.
    let holder: RegisteredUser;
    let claims: Record<string, unknown>;

    beforeAll(async () => {
      holder = await registerUser(app);
      claims = decodeJwt(holder.tokens.refresh_token).payload;
    });

    /** Refresh-token forgeries; none may rotate the session, and none may revoke it either. */
    const refreshForgeries: [string, () => string][] = [
      ['alg none', () => forge(claims, { alg: 'none' })],
      ['another secret', () => forge(claims, { secret: 'another-secret-0123456789-abcdefghijklmnop' })],
      ['HS384 with the right secret', () => forge(claims, { alg: 'HS384' })],
      ['HS512 with the right secret', () => forge(claims, { alg: 'HS512' })],
      ['a changed payload (gen bumped)', () => withChangedPayload(holder.tokens.refresh_token, { gen: 1 })],
      [
        'a changed payload (sub of another user)',
        () => withChangedPayload(holder.tokens.refresh_token, { sub: other.id }),
      ],
      ['the access token', () => holder.tokens.access_token],
      ['token_type "2fa"', () => forge({ ...claims, token_type: '2fa', jti: randomUUID() })],
      ['an expired, correctly signed refresh token', () => forge({ ...claims, iat: now() - 2000, exp: now() - 1000 })],
      ['garbage', () => 'garbage'],
    ];

    it.each(refreshForgeries)('refuses %s in the body with 401 UNAUTHENTICATED', async (_label, make) => {
      const res = await refresh(app, make());
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHENTICATED);
      expect(res.headers['set-cookie']).toBeUndefined();
    });

    it.each(refreshForgeries)(
      'refuses %s in the refresh_token cookie with 401 UNAUTHENTICATED',
      async (_label, make) => {
        // From APP_URL's origin (the default), so the cookie reaches the token check.
        const res = await request(server())
          .post('/api/auth/refresh')
          .set('cookie', `refresh_token=${make()}`)
          .set('origin', 'http://localhost:3000');
        expect(res.status).toBe(401);
        expect(res.body).toEqual(UNAUTHENTICATED);
      },
    );

    it('leaves the genuine refresh token usable after every forgery', async () => {
      expect((await me(app, holder.tokens.access_token)).status).toBe(200);
      const res = await refresh(app, holder.tokens.refresh_token);
      expect(res.status).toBe(200);
      expect(res.body.data.user.id).toBe(holder.id);
    });
  });
});
