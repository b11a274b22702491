import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { logout, me, registerUser, uniqueMobile } from '../support/auth-factory.js';
import { useTestApp, useTestDatabase } from '../support/fixture.js';
import { testRedisUrl, useRedis } from '../support/redis.js';
import { callerWithRoles, call, idOf, roleWithPermissions } from '../support/rbac-factory.js';

/** A Redis database of this file's own, so its counters and epoch are nobody else's. */
const REDIS_INDEX = 9;
/** No background poll while statements are counted. */
const QUIET = { OUTBOX_POLL_MS: '3600000' };

/** Every statement the app sends through its connection pool, counted from the last reset. */
function statementCounter(app: NestFastifyApplication): { statements: string[]; reset(): void } {
  const counter = { statements: [] as string[], reset: () => void (counter.statements.length = 0) };
  const logger = app.get(DataSource).logger;
  const logQuery = logger.logQuery.bind(logger);
  logger.logQuery = (query, parameters, runner) => {
    counter.statements.push(query);
    return logQuery(query, parameters, runner);
  };
  return counter;
}

async function grantThroughApi(
  app: NestFastifyApplication,
  adminToken: string,
  userId: string,
  roleId: string,
): Promise<void> {
  const res = await call(app, 'post', `/api/admin/users/${userId}/roles`, adminToken, { role_ids: [roleId] });
  expect(res.status).toBe(200);
}

/**
 * A warm authenticated request answers from the process: the caller (session, roles,
 * permissions) and the settings are cached under version counters that every change bumps, so
 * nothing is asked of the database until something changes, and a change is seen by the very
 * next request.
 */
describe('the caller cache', () => {
  const data = useTestDatabase();
  let db: DataSource;
  beforeAll(() => void ({ db } = data));

  describe('one instance without Redis (SINGLE_INSTANCE)', () => {
    const fixture = useTestApp({ env: { ...QUIET, SINGLE_INSTANCE: 'true', REDIS_URL: undefined } });
    let app: NestFastifyApplication;
    let counter: ReturnType<typeof statementCounter>;
    beforeAll(() => {
      app = fixture.app;
      counter = statementCounter(app);
    });

    it('answers a warm GET /api/auth/me without a database statement', async () => {
      const mobile = uniqueMobile();
      const user = await registerUser(app, { mobile });
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
      counter.reset();
      const warm = await me(app, user.tokens.access_token);
      expect(warm.status).toBe(200);
      expect(warm.body.data).toMatchObject({
        id: user.id,
        email: user.email,
        name: 'Test User',
        mobile,
        roles: ['user'],
      });
      expect(counter.statements).toEqual([]);
    });

    it('answers a warm permission-guarded request with no statement of the guard', async () => {
      const admin = await callerWithRoles(app, db, ['admin']);
      expect((await call(app, 'get', '/api/admin/settings', admin.token)).status).toBe(200);
      counter.reset();
      const warm = await call(app, 'get', '/api/admin/settings', admin.token);
      expect(warm.status).toBe(200);
      expect(warm.body.data).toEqual({ email_password: true, mobile_otp: false, email_code: false });
      expect(counter.statements).toEqual([]);
    });

    it('sees a permission taken from a role at the next request', async () => {
      const admin = await callerWithRoles(app, db, ['admin']);
      const viewers = await roleWithPermissions(db, ['users.view', 'contents.view'], 'cache-viewers');
      const user = await registerUser(app);
      await grantThroughApi(app, admin.token, user.id, viewers.id);
      for (let i = 0; i < 2; i += 1) {
        expect((await call(app, 'get', '/api/admin/users?limit=1', user.tokens.access_token)).status).toBe(200);
      }
      const contentsView = await idOf(db, 'permissions', 'contents.view');
      const edited = await call(app, 'put', `/api/admin/roles/${viewers.id}`, admin.token, {
        permission_ids: [contentsView],
      });
      expect(edited.status).toBe(200);

      counter.reset();
      const refused = await call(app, 'get', '/api/admin/users?limit=1', user.tokens.access_token);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
      // Read again once, then cached again.
      expect(counter.statements.length).toBeGreaterThan(0);
      expect((await me(app, user.tokens.access_token)).body.data.permissions).toEqual(['contents.view']);
    });

    it('sees a role removed from the user at the next request', async () => {
      const admin = await callerWithRoles(app, db, ['admin']);
      const viewers = await roleWithPermissions(db, ['users.view'], 'cache-viewers');
      const user = await registerUser(app);
      await grantThroughApi(app, admin.token, user.id, viewers.id);
      expect((await call(app, 'get', '/api/admin/users?limit=1', user.tokens.access_token)).status).toBe(200);
      expect((await call(app, 'delete', `/api/admin/users/${user.id}/roles/${viewers.id}`, admin.token)).status).toBe(
        200,
      );
      expect((await call(app, 'get', '/api/admin/users?limit=1', user.tokens.access_token)).status).toBe(403);
    });

    it('refuses the access token at the next request after logout', async () => {
      const user = await registerUser(app);
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
      expect((await logout(app, user.tokens.access_token)).status).toBe(200);
      const res = await me(app, user.tokens.access_token);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    });

    it('shows a changed name at the next request', async () => {
      const admin = await callerWithRoles(app, db, ['admin']);
      const user = await registerUser(app);
      expect((await me(app, user.tokens.access_token)).body.data.name).toBe('Test User');
      expect((await call(app, 'put', `/api/admin/users/${user.id}`, admin.token, { name: 'Renamed' })).status).toBe(
        200,
      );
      expect((await me(app, user.tokens.access_token)).body.data.name).toBe('Renamed');
    });
  });

  describe('two instances sharing Redis', () => {
    const store = useRedis({ index: REDIS_INDEX, flush: true });
    const fixture = useTestApp({
      env: { ...QUIET, REDIS_URL: testRedisUrl(REDIS_INDEX), DB_POOL_SIZE: '4' },
      instances: 2,
    });
    let first: NestFastifyApplication;
    let second: NestFastifyApplication;
    let redis: Redis;
    let counter: ReturnType<typeof statementCounter>;
    beforeAll(() => {
      [first, second] = fixture.apps;
      redis = store.client;
      counter = statementCounter(second);
    });

    it('answers a warm GET /api/auth/me on either instance without a database statement', async () => {
      const user = await registerUser(first);
      expect((await me(second, user.tokens.access_token)).status).toBe(200);
      counter.reset();
      expect((await me(second, user.tokens.access_token)).status).toBe(200);
      expect(counter.statements).toEqual([]);
      // The counters the instances share are in this Redis database.
      expect(await redis.get('versions:epoch')).toEqual(expect.any(String));
    });

    it('sees on one instance, at the next request, a permission change made on the other', async () => {
      const admin = await callerWithRoles(first, db, ['admin']);
      const viewers = await roleWithPermissions(db, ['users.view', 'contents.view'], 'cache-viewers');
      const user = await registerUser(first);
      await grantThroughApi(first, admin.token, user.id, viewers.id);
      // The grant was published in Redis, where the other instance reads it.
      expect(await redis.get(`authz:v:user:${user.id}`)).toBe('1');
      for (let i = 0; i < 2; i += 1) {
        expect((await call(second, 'get', '/api/admin/users?limit=1', user.tokens.access_token)).status).toBe(200);
      }
      const contentsView = await idOf(db, 'permissions', 'contents.view');
      expect(
        (await call(first, 'put', `/api/admin/roles/${viewers.id}`, admin.token, { permission_ids: [contentsView] }))
          .status,
      ).toBe(200);
      const refused = await call(second, 'get', '/api/admin/users?limit=1', user.tokens.access_token);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
    });

    it('refuses on one instance, at the next request, a token logged out on the other', async () => {
      const user = await registerUser(first);
      expect((await me(second, user.tokens.access_token)).status).toBe(200);
      expect((await me(second, user.tokens.access_token)).status).toBe(200);
      expect(await redis.get(`authz:v:user:${user.id}`)).toBeNull();
      expect((await logout(first, user.tokens.access_token)).status).toBe(200);
      expect(await redis.get(`authz:v:user:${user.id}`)).toBe('1');
      const res = await me(second, user.tokens.access_token);

      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    });
  });
});
