import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { me, registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { testRedisUrl, useRedis } from '../support/redis.js';
import { callerWithOnlyPermissions, callerWithRoles, call, roleWithPermissions } from '../support/rbac-factory.js';

/** A Redis database of this file's own: FLUSHDB here touches nothing another test uses. */
const REDIS_INDEX = 7;

/**
 * Redis holds the version counters that tell an instance when its cached callers are stale. A
 * flush (or a restart without persistence) sets every counter back to nothing; a counter bumped
 * once before and once after the flush then reads the same, and a cache that trusted it would
 * keep serving a revoked role or session.
 */
describe('cached callers after Redis loses its data', () => {
  const store = useRedis({ index: REDIS_INDEX, flush: true });
  const fixture = useTestApp({ env: { REDIS_URL: testRedisUrl(REDIS_INDEX) } });
  let app: NestFastifyApplication;
  let db: DataSource;
  let redis: Redis;
  beforeAll(() => {
    ({ app, db } = fixture);
    redis = store.client;
  });

  it('sees a removed role and a password change at once after a FLUSHDB', async () => {
    const admin = await callerWithRoles(app, db, ['admin']);
    const viewers = await roleWithPermissions(db, ['users.view'], 'flush-viewers');
    const readers = await roleWithPermissions(db, ['contents.view'], 'flush-readers');
    const first = await registerUser(app);
    const second = await registerUser(app);
    // Through the API, so each user's counter is bumped once before anything is cached.
    expect(
      (await call(app, 'post', `/api/admin/users/${first.id}/roles`, admin.token, { role_ids: [viewers.id] })).status,
    ).toBe(200);
    expect(
      (await call(app, 'post', `/api/admin/users/${second.id}/roles`, admin.token, { role_ids: [readers.id] })).status,
    ).toBe(200);

    // Both callers cached: the first with users.view, the second's session live.
    expect((await call(app, 'get', '/api/admin/users?limit=1', first.tokens.access_token)).status).toBe(200);
    expect((await me(app, second.tokens.access_token)).status).toBe(200);
    expect((await call(app, 'get', '/api/admin/users?limit=1', first.tokens.access_token)).status).toBe(200);
    expect((await me(app, second.tokens.access_token)).status).toBe(200);

    // The counters really are in this Redis database.
    expect(await redis.get(`authz:v:user:${first.id}`)).toBe('1');
    expect(await redis.get(`authz:v:user:${second.id}`)).toBe('1');
    const epochBefore = await redis.get('versions:epoch');
    expect(epochBefore).toEqual(expect.any(String));

    await redis.flushdb();

    const removed = await call(app, 'delete', `/api/admin/users/${first.id}/roles/${viewers.id}`, admin.token);
    expect(removed.status).toBe(200);
    const changed = await call(app, 'put', `/api/admin/users/${second.id}`, admin.token, {
      password: 'Quartz-Meadow-Violin-77',
    });
    expect(changed.status).toBe(200);

    const refused = await call(app, 'get', '/api/admin/users?limit=1', first.tokens.access_token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    const revoked = await me(app, second.tokens.access_token);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('UNAUTHENTICATED');

    // A new epoch was started after the flush, and the counters count from there.
    const epochAfter = await redis.get('versions:epoch');
    expect(epochAfter).toEqual(expect.any(String));
    expect(epochAfter).not.toBe(epochBefore);
  });

  it('sees an emptied role after a FLUSHDB, however the counters read afterwards', async () => {
    const admin = await callerWithRoles(app, db, ['admin']);
    // Granted in SQL and signed in afresh: nothing bumps a counter before the caller is cached,
    // so every counter this caller depends on reads "never bumped" both before and after.
    const viewer = await callerWithOnlyPermissions(app, db, ['users.view']);
    const role = (
      await db.query(`SELECT r.id FROM roles r JOIN user_roles ur ON ur.role_id = r.id WHERE ur.user_id = $1`, [
        viewer.id,
      ])
    )[0].id as string;
    await redis.flushdb();
    expect((await call(app, 'get', '/api/admin/users?limit=1', viewer.token)).status).toBe(200);
    expect((await call(app, 'get', '/api/admin/users?limit=1', viewer.token)).status).toBe(200);

    await redis.flushdb();
    // The role is emptied (a global change) rather than taken from the user; its bump is lost too.
    expect((await call(app, 'put', `/api/admin/roles/${role}`, admin.token, { permission_ids: [] })).status).toBe(200);
    await redis.flushdb();

    expect((await call(app, 'get', '/api/admin/users?limit=1', viewer.token)).status).toBe(403);
  });
});
