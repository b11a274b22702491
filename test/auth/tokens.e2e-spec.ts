import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import jwt from 'jsonwebtoken';
import request, { type Response } from 'supertest';
import type { DataSource } from 'typeorm';
import {
  decodeJwt,
  login,
  loginTokens,
  logout,
  me,
  refresh,
  registerUser,
  setCookies,
  sleep,
  uniqueMobile,
} from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('token pair, cookies, /me and logout', () => {
  let app: NestFastifyApplication;
  let db: DataSource;

  const fixture = useTestApp();
  beforeAll(() => void ({ app, db } = fixture));

  const server = () => app.getHttpServer();

  describe('claims', () => {
    it("issues HS256 access and refresh tokens with the contract's claims and lifetimes", async () => {
      const before = Math.floor(Date.now() / 1000);
      const user = await registerUser(app);
      const after = Math.ceil(Date.now() / 1000);
      const access = decodeJwt(user.tokens.access_token);
      const refreshToken = decodeJwt(user.tokens.refresh_token);

      expect(access.header).toEqual({ alg: 'HS256', typ: 'at+jwt', kid: expect.any(String) });
      expect(refreshToken.header).toEqual({ alg: 'HS256', typ: 'refresh+jwt', kid: access.header.kid });
      // ISSUER defaults to APP_URL; access tokens are for the issuer, refresh tokens for the refresh endpoint only.
      expect(access.payload).toMatchObject({ iss: 'http://localhost:3000', aud: 'http://localhost:3000' });
      expect(refreshToken.payload).toMatchObject({
        iss: 'http://localhost:3000',
        aud: 'http://localhost:3000/api/auth/refresh',
      });
      expect(access.payload).toEqual(
        expect.objectContaining({
          sub: user.id,
          email: user.email,
          token_type: 'access',
          jti: expect.any(String),
          sid: expect.stringMatching(UUID),
          iat: expect.any(Number),
          exp: expect.any(Number),
        }),
      );
      expect(refreshToken.payload).toEqual(
        expect.objectContaining({ sub: user.id, email: user.email, token_type: 'refresh', sid: access.payload.sid }),
      );
      expect(refreshToken.payload.jti).toEqual(expect.any(String));
      expect(refreshToken.payload.jti).not.toBe(access.payload.jti);
      for (const { payload } of [access, refreshToken]) {
        expect(payload.iat).toBeGreaterThanOrEqual(before);
        expect(payload.iat).toBeLessThanOrEqual(after);
        expect(Number.isInteger(payload.exp)).toBe(true);
      }
      expect((access.payload.exp as number) - (access.payload.iat as number)).toBe(900);
      expect((refreshToken.payload.exp as number) - (refreshToken.payload.iat as number)).toBe(604800);
      expect(user.tokens.expires_in).toBe(900);
      // The session id is the row that backs the pair.
      const rows = await db.query(`SELECT user_id FROM sessions WHERE id = $1`, [access.payload.sid]);
      expect(rows).toEqual([{ user_id: user.id }]);
    });

    it('verifies with the jsonwebtoken package given the plain JWT_SECRET string', async () => {
      const user = await registerUser(app);
      const access = jwt.verify(user.tokens.access_token, TEST_JWT_SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
      const refreshClaims = jwt.verify(user.tokens.refresh_token, TEST_JWT_SECRET, {
        algorithms: ['HS256'],
      }) as jwt.JwtPayload;
      expect(access.sub).toBe(user.id);
      expect(access.token_type).toBe('access');
      expect(refreshClaims.token_type).toBe('refresh');
      expect(() => jwt.verify(user.tokens.access_token, `${TEST_JWT_SECRET}x`, { algorithms: ['HS256'] })).toThrow();
    });

    it('keeps the session id and gives fresh jti values on refresh', async () => {
      const user = await registerUser(app);
      const res = await refresh(app, user.tokens.refresh_token);
      expect(res.status).toBe(200);
      const before = decodeJwt(user.tokens.access_token).payload;
      const access = decodeJwt(res.body.data.access_token).payload;
      const refreshClaims = decodeJwt(res.body.data.refresh_token).payload;
      expect(access.sid).toBe(before.sid);
      expect(refreshClaims.sid).toBe(before.sid);
      expect(access.jti).not.toBe(before.jti);
      expect(refreshClaims.jti).not.toBe(decodeJwt(user.tokens.refresh_token).payload.jti);
      expect((access.exp as number) - (access.iat as number)).toBe(900);
      expect((refreshClaims.exp as number) - (refreshClaims.iat as number)).toBe(604800);
    });
  });

  describe('cookies and caching', () => {
    function expectTokenCookies(res: Response): void {
      const cookies = setCookies(res);
      expect(cookies.access_token?.value).toBe(res.body.data.access_token);
      expect(cookies.access_token?.attributes).toEqual(
        expect.objectContaining({ httponly: true, secure: true, samesite: 'Strict', path: '/', 'max-age': '900' }),
      );
      expect(cookies.refresh_token?.value).toBe(res.body.data.refresh_token);
      expect(cookies.refresh_token?.attributes).toEqual(
        expect.objectContaining({
          httponly: true,
          secure: true,
          samesite: 'Strict',
          path: '/api/auth',
          'max-age': '604800',
        }),
      );
      expect(res.headers['cache-control']).toBe('no-store');
    }

    it("sets both cookies with the contract's attributes on register, login and refresh", async () => {
      const registered = await request(server())
        .post('/api/auth/register')
        .send({
          name: 'C',
          email: `c-${Date.now()}-${Math.random()}@example.com`,
          password: 'Plum-Orbit-Lantern-42',
          password_confirmation: 'Plum-Orbit-Lantern-42',
        });
      expect(registered.status).toBe(201);
      expectTokenCookies(registered);

      const loggedIn = await login(app, { email: registered.body.data.user.email, password: 'Plum-Orbit-Lantern-42' });
      expect(loggedIn.status).toBe(200);
      expectTokenCookies(loggedIn);

      const refreshed = await refresh(app, loggedIn.body.data.refresh_token);
      expect(refreshed.status).toBe(200);
      expectTokenCookies(refreshed);
    });

    it('sets cookies on a mobile login too', async () => {
      const mobile = uniqueMobile();
      const user = await registerUser(app, { mobile });
      const res = await login(app, { mobile, password: user.password });
      expect(res.status).toBe(200);
      expectTokenCookies(res);
    });

    it('marks /me and refusals no-store as well', async () => {
      const user = await registerUser(app);
      expect((await me(app, user.tokens.access_token)).headers['cache-control']).toBe('no-store');
      expect((await refresh(app, 'x.y.z')).headers['cache-control']).toBe('no-store');
    });

    it('authenticates by the access_token cookie when there is no Authorization header', async () => {
      const user = await registerUser(app);
      const res = await request(server()).get('/api/auth/me').set('cookie', `access_token=${user.tokens.access_token}`);
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(user.id);
    });

    it('refreshes with the refresh_token cookie when the body has none', async () => {
      const user = await registerUser(app);
      // A browser on APP_URL's origin (the default): cookie-authenticated writes need a trusted Origin.
      const res = await request(server())
        .post('/api/auth/refresh')
        .set('cookie', `refresh_token=${user.tokens.refresh_token}`)
        .set('origin', 'http://localhost:3000');
      expect(res.status).toBe(200);
      expectTokenCookies(res);
      expect((await me(app, res.body.data.access_token)).status).toBe(200);
      // The same works with an empty JSON body.
      const again = await request(server())
        .post('/api/auth/refresh')
        .set('cookie', `refresh_token=${res.body.data.refresh_token}`)
        .set('origin', 'http://localhost:3000')
        .send({});
      expect(again.status).toBe(200);
    });

    it('prefers the refresh_token in the body over the cookie', async () => {
      const user = await registerUser(app);
      const other = await registerUser(app);
      const res = await request(server())
        .post('/api/auth/refresh')
        .set('cookie', `refresh_token=${other.tokens.refresh_token}`)
        .send({ refresh_token: user.tokens.refresh_token });
      expect(res.status).toBe(200);
      expect(res.body.data.user.id).toBe(user.id);
      // The cookie's token was not touched: it still rotates once.
      expect((await refresh(app, other.tokens.refresh_token)).status).toBe(200);
    });

    it('answers a refresh with no token at all with 401 UNAUTHENTICATED', async () => {
      const res = await request(server()).post('/api/auth/refresh').send({});
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
    });

    it.each([
      ['a number', 42],
      ['null', null],
      ['an empty string', ''],
      ['an array', ['x.y.z']],
    ])('refuses %s as refresh_token with 400 VALIDATION_FAILED', async (_label, value) => {
      const res = await request(server()).post('/api/auth/refresh').send({ refresh_token: value });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    });
  });

  describe('GET /api/auth/me', () => {
    it('returns id, name, email, mobile, roles and permissions, and nothing secret', async () => {
      const mobile = uniqueMobile();
      const user = await registerUser(app, { name: 'Katherine Johnson', mobile });
      const res = await me(app, user.tokens.access_token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          id: user.id,
          name: 'Katherine Johnson',
          email: user.email,
          mobile,
          email_verified: false,
          roles: ['user'],
          permissions: [],
        },
      });
    });

    it('is refused without a token', async () => {
      const res = await request(server()).get('/api/auth/me');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
    });
  });

  describe('POST /api/auth/logout', () => {
    it('answers 200 {}, clears both cookies, and kills the access and refresh tokens', async () => {
      const user = await registerUser(app);
      const res = await logout(app, user.tokens.access_token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: {} });

      const cookies = setCookies(res);
      for (const [name, path] of [
        ['access_token', '/'],
        ['refresh_token', '/api/auth'],
      ] as const) {
        const cookie = cookies[name];
        expect(cookie?.value).toBe('');
        expect(cookie?.attributes.path).toBe(path);
        expect(cookie?.attributes['max-age']).toBe('0');
        expect(new Date(String(cookie?.attributes.expires)).getTime()).toBe(0);
      }

      const meAfter = await me(app, user.tokens.access_token);
      expect(meAfter.status).toBe(401);
      expect(meAfter.body.error.code).toBe('UNAUTHENTICATED');
      const refreshAfter = await refresh(app, user.tokens.refresh_token);
      expect(refreshAfter.status).toBe(401);
      expect(refreshAfter.body.error.code).toBe('UNAUTHENTICATED');
      expect((await logout(app, user.tokens.access_token)).status).toBe(401);

      const [session] = await db.query(`SELECT revoked_at, revoked_reason FROM sessions WHERE id = $1`, [
        decodeJwt(user.tokens.access_token).payload.sid,
      ]);
      expect(session.revoked_at).toBeInstanceOf(Date);
      expect(session.revoked_reason).toBe('logout');
    });

    it('logs out by the access_token cookie', async () => {
      const user = await registerUser(app);
      const res = await request(server())
        .post('/api/auth/logout')
        .set('cookie', `access_token=${user.tokens.access_token}`)
        .set('origin', 'http://localhost:3000');
      expect(res.status).toBe(200);
      expect((await me(app, user.tokens.access_token)).status).toBe(401);
    });

    it("ends only the current session: the user's other sessions keep working", async () => {
      const user = await registerUser(app);
      const other = await loginTokens(app, user);
      expect((await logout(app, user.tokens.access_token)).status).toBe(200);
      expect((await me(app, other.access_token)).status).toBe(200);
      expect((await refresh(app, other.refresh_token)).status).toBe(200);
    });

    it('is refused without a token, and with a refresh token as Bearer', async () => {
      const user = await registerUser(app);
      const missing = await request(server()).post('/api/auth/logout');
      expect(missing.status).toBe(401);
      expect(missing.body.error.code).toBe('UNAUTHENTICATED');
      const wrongType = await logout(app, user.tokens.refresh_token);
      expect(wrongType.status).toBe(401);
      expect(wrongType.body.error.code).toBe('UNAUTHENTICATED');
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
    });
  });

  describe('expired access tokens', () => {
    it('refuses a correctly signed access token of a live session once it has expired', async () => {
      const user = await registerUser(app);
      const claims = decodeJwt(user.tokens.access_token).payload;
      const now = Math.floor(Date.now() / 1000);
      const expired = jwt.sign(
        {
          sub: claims.sub,
          email: claims.email,
          token_type: 'access',
          sid: claims.sid,
          jti: 'expired-jti',
          iat: now - 1000,
          exp: now - 100,
        },
        TEST_JWT_SECRET,
        { algorithm: 'HS256' },
      );
      for (const res of [
        await me(app, expired),
        await request(server()).get('/api/auth/me').set('cookie', `access_token=${expired}`),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
      }
      // The session itself is live: its own token still works.
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
    });
  });
});

describe('ACCESS_TOKEN_EXPIRY', () => {
  let app: NestFastifyApplication;

  const fixture = useTestApp({ env: { ACCESS_TOKEN_EXPIRY: '1', DB_POOL_SIZE: '3' } });
  beforeAll(() => void ({ app } = fixture));

  it('issues access tokens that die after ACCESS_TOKEN_EXPIRY; the refresh token then buys a new one', async () => {
    const user = await registerUser(app);
    expect(user.tokens.expires_in).toBe(1);
    const { exp, iat } = decodeJwt(user.tokens.access_token).payload as { exp: number; iat: number };
    expect(exp - iat).toBe(1);
    expect(
      setCookies(await login(app, { email: user.email, password: user.password })).access_token?.attributes['max-age'],
    ).toBe('1');

    // Past the expiry as the verifier counts it (whole seconds).
    await sleep(Math.max(0, (exp + 1) * 1000 - Date.now()) + 50);
    const res = await me(app, user.tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');

    const refreshed = await refresh(app, user.tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    expect((await me(app, refreshed.body.data.access_token)).status).toBe(200);
  });
});
