import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { me, registerUser, registrationBody, uniqueEmail } from '../support/auth-factory.js';
import { callerWithPermissions, type Caller } from '../support/rbac-factory.js';
import { useTestApp } from '../support/fixture.js';

const APP_URL = 'https://accounts.example.test';
const FRONTEND = 'https://app.example.test';
const EVIL = 'https://evil.example';

/**
 * Browsers send cookies with cross-site requests; SameSite=Strict is the first defence, and a
 * write authenticated by a cookie must also come from an origin the service trusts.
 */
describe('cookie-authenticated writes and their origin', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  let admin: Caller;
  let ownOrigin: string;

  const fixture = useTestApp({
    env: { APP_URL: `${APP_URL}/`, CORS_ORIGINS: `${FRONTEND}, https://other.example.test` },
    listen: true,
  });
  beforeAll(async () => {
    ({ app, db } = fixture);
    ownOrigin = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    admin = await callerWithPermissions(app, db, ['users.view', 'users.create', 'users.edit', 'users.delete']);
  });

  const server = () => app.getHttpServer();
  const accessCookie = (token: string) => `access_token=${token}`;
  const refreshCookie = (token: string) => `refresh_token=${token}`;

  function expectForbidden(res: request.Response) {
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, error: { code: 'FORBIDDEN', message: expect.any(String) } });
    expect(res.headers['set-cookie']).toBeUndefined();
  }

  describe('refused', () => {
    it('POST /api/admin/users with only the access_token cookie from a foreign Origin: 403, nobody created', async () => {
      const email = uniqueEmail('csrf');
      const res = await request(server())
        .post('/api/admin/users')
        .set('cookie', accessCookie(admin.token))
        .set('origin', EVIL)
        .send({ name: 'Planted', email, password: 'Plum-Orbit-Lantern-42' });
      expectForbidden(res);
      expect(await db.query(`SELECT id FROM users WHERE email = $1`, [email])).toEqual([]);
    });

    it('DELETE /api/admin/users/{id} with the cookie from a foreign Origin: 403, the user remains', async () => {
      const victim = await registerUser(app);
      const res = await request(server())
        .delete(`/api/admin/users/${victim.id}`)
        .set('cookie', accessCookie(admin.token))
        .set('origin', EVIL);
      expectForbidden(res);
      expect(await db.query(`SELECT id FROM users WHERE id = $1`, [victim.id])).toHaveLength(1);
    });

    it('PUT /api/admin/users/{id} with the cookie from a foreign Origin: 403, nothing changed', async () => {
      const victim = await registerUser(app);
      const res = await request(server())
        .put(`/api/admin/users/${victim.id}`)
        .set('cookie', accessCookie(admin.token))
        .set('origin', EVIL)
        .send({ email: uniqueEmail('stolen') });
      expectForbidden(res);
      expect((await me(app, victim.tokens.access_token)).body.data.email).toBe(victim.email);
    });

    it('a cookie-only refresh from a foreign Origin is 403 and consumes nothing: the token then works from an allowed Origin', async () => {
      const user = await registerUser(app);
      const refused = await request(server())
        .post('/api/auth/refresh')
        .set('cookie', refreshCookie(user.tokens.refresh_token))
        .set('origin', EVIL);
      expectForbidden(refused);
      const allowed = await request(server())
        .post('/api/auth/refresh')
        .set('cookie', refreshCookie(user.tokens.refresh_token))
        .set('origin', FRONTEND);
      expect(allowed.status).toBe(200);
      expect(allowed.body.data.access_token).toEqual(expect.any(String));
    });

    it('a cookie logout from a foreign Origin is 403 and the session lives on', async () => {
      const user = await registerUser(app);
      const res = await request(server())
        .post('/api/auth/logout')
        .set('cookie', accessCookie(user.tokens.access_token))
        .set('origin', EVIL);
      expectForbidden(res);
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
    });

    it('a cookie write with neither Origin nor Referer is 403', async () => {
      const user = await registerUser(app);
      expectForbidden(
        await request(server()).post('/api/auth/logout').set('cookie', accessCookie(user.tokens.access_token)),
      );
      expectForbidden(
        await request(server()).post('/api/auth/refresh').set('cookie', refreshCookie(user.tokens.refresh_token)),
      );
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
    });

    it('a foreign Referer, an opaque Origin ("null"), a look-alike host and an unparseable Referer are refused', async () => {
      const user = await registerUser(app);
      const logout = () =>
        request(server()).post('/api/auth/logout').set('cookie', accessCookie(user.tokens.access_token));
      expectForbidden(await logout().set('referer', `${EVIL}/page`));
      expectForbidden(await logout().set('origin', 'null'));
      expectForbidden(await logout().set('origin', `${APP_URL}.evil.example`));
      expectForbidden(await logout().set('origin', 'http://accounts.example.test'));
      expectForbidden(await logout().set('referer', 'not a url'));
      // An allowed Referer does not rescue a foreign Origin: the Origin is what the browser vouches for.
      expectForbidden(await logout().set('origin', EVIL).set('referer', `${APP_URL}/page`));
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
    });
  });

  describe('allowed', () => {
    it("a Referer of APP_URL's origin", async () => {
      const user = await registerUser(app);
      const res = await request(server())
        .post('/api/auth/logout')
        .set('cookie', accessCookie(user.tokens.access_token))
        .set('referer', `${APP_URL}/settings?tab=security`);
      expect(res.status).toBe(200);
      expect((await me(app, user.tokens.access_token)).status).toBe(401);
    });

    it("APP_URL's origin, each CORS origin and the service's own origin, as Origin", async () => {
      for (const origin of [APP_URL, FRONTEND, 'https://other.example.test', ownOrigin]) {
        const user = await registerUser(app);
        const res = await request(server())
          .post('/api/auth/logout')
          .set('cookie', accessCookie(user.tokens.access_token))
          .set('origin', origin);
        expect({ origin, status: res.status }).toEqual({ origin, status: 200 });
      }
    });

    it('a cookie write from an allowed origin reaches the handler', async () => {
      const email = uniqueEmail('made');
      const res = await request(server())
        .post('/api/admin/users')
        .set('cookie', accessCookie(admin.token))
        .set('origin', FRONTEND)
        .send({ name: 'Made', email, password: 'Plum-Orbit-Lantern-42' });
      expect(res.status).toBe(201);
    });

    it('a Bearer token with a hostile Origin is not affected, even with the cookie beside it', async () => {
      const victim = await registerUser(app);
      const res = await request(server())
        .delete(`/api/admin/users/${victim.id}`)
        .set('authorization', `Bearer ${admin.token}`)
        .set('cookie', accessCookie(admin.token))
        .set('origin', EVIL);
      expect(res.status).toBe(200);
      const user = await registerUser(app);
      const logout = await request(server())
        .post('/api/auth/logout')
        .set('authorization', `Bearer ${user.tokens.access_token}`)
        .set('origin', EVIL);
      expect(logout.status).toBe(200);
    });

    it('a refresh token in the body with a hostile Origin is not affected', async () => {
      const user = await registerUser(app);
      const res = await request(server())
        .post('/api/auth/refresh')
        .set('cookie', refreshCookie('ignored'))
        .set('origin', EVIL)
        .send({ refresh_token: user.tokens.refresh_token });
      expect(res.status).toBe(200);
    });

    it('a GET with the cookie from any origin', async () => {
      const res = await request(server())
        .get('/api/auth/me')
        .set('cookie', accessCookie(admin.token))
        .set('origin', EVIL);
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(admin.id);
    });

    it('public writes that no cookie authenticates (register) are not affected', async () => {
      const res = await request(server())
        .post('/api/auth/register')
        .set('cookie', accessCookie(admin.token))
        .set('origin', EVIL)
        .send(registrationBody());
      expect(res.status).toBe(201);
    });
  });
});

describe('POST /api/auth/logout body', () => {
  let app: NestFastifyApplication;

  const fixture = useTestApp();
  beforeAll(() => void ({ app } = fixture));

  const logout = (token: string) =>
    request(app.getHttpServer()).post('/api/auth/logout').set('authorization', `Bearer ${token}`);

  it('refuses an unknown field with 400 VALIDATION_FAILED and keeps the session', async () => {
    const user = await registerUser(app);
    const res = await logout(user.tokens.access_token).send({ everywhere: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: {
        code: 'VALIDATION_FAILED',
        message: expect.any(String),
        details: [{ field: 'everywhere', message: expect.any(String) }],
      },
    });
    expect((await me(app, user.tokens.access_token)).status).toBe(200);
  });

  it('refuses a body that is not an object', async () => {
    const user = await registerUser(app);
    const res = await logout(user.tokens.access_token).set('content-type', 'application/json').send('[1]');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('takes an empty object', async () => {
    const user = await registerUser(app);
    expect((await logout(user.tokens.access_token).send({})).status).toBe(200);
  });

  it('takes no body at all', async () => {
    const user = await registerUser(app);
    expect((await logout(user.tokens.access_token)).status).toBe(200);
  });
});
