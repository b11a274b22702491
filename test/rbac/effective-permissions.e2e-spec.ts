import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DataSource } from 'typeorm';
import { useTestApp } from '../support/fixture.js';
import { TEST_REDIS_URL, useRedis } from '../support/redis.js';
import { callerWithRoles, call, roleWithPermissions } from '../support/rbac-factory.js';

const SETUPS: [string, { redis: boolean }][] = [
  ['without Redis (PostgreSQL read on every request)', { redis: false }],
  ['with Redis (cached callers, shared versions)', { redis: true }],
];

describe.each(SETUPS)('effective permissions on two instances %s', (_name, { redis: withRedis }) => {
  const redis = withRedis ? useRedis() : undefined;
  const fixture = useTestApp({ env: withRedis ? { REDIS_URL: TEST_REDIS_URL } : {}, instances: 2 });
  let first: NestFastifyApplication;
  let second: NestFastifyApplication;
  let db: DataSource;
  beforeAll(() => {
    ({ db } = fixture);
    [first, second] = fixture.apps;
  });

  /** With Redis, a change to the user was published there (the user's version counter moved). */
  const expectPublished = async (userId: string) => {
    if (redis) expect(Number(await redis.client.get(`authz:v:user:${userId}`))).toBeGreaterThanOrEqual(1);
  };
  /** With Redis, the version of every role and permission definition, which any change moves. */
  const globalVersion = async () => Number(await redis?.client.get('authz:v:global'));

  const permissionsOn = async (app: NestFastifyApplication, token: string) =>
    ((await call(app, 'get', '/api/auth/me', token)).body.data.permissions as string[]).sort();

  it('are the union over all roles, and follow every change on the very next request anywhere', async () => {
    const admin = await callerWithRoles(first, db, ['admin']);
    const viewer = await roleWithPermissions(db, ['contents.view']);
    const people = await roleWithPermissions(db, ['users.view', 'contents.view']);
    const member = await callerWithRoles(first, db, [viewer.name, people.name]);

    expect(await permissionsOn(second, member.token)).toEqual(['contents.view', 'users.view']);
    // Warm both instances' caches.
    expect((await call(second, 'get', '/api/admin/users', member.token)).status).toBe(200);
    expect((await call(first, 'get', '/api/admin/users', member.token)).status).toBe(200);

    // Removing a role on one instance is seen by the other at once.
    const removed = await call(first, 'delete', `/api/admin/users/${member.id}/roles/${people.id}`, admin.token);
    expect(removed.status).toBe(200);
    await expectPublished(member.id);
    expect((await call(second, 'get', '/api/admin/users', member.token)).status).toBe(403);
    expect(await permissionsOn(second, member.token)).toEqual(['contents.view']);

    // Editing a role's permissions applies to its holders at once.
    const usersView = (await db.query(`SELECT id FROM permissions WHERE name = 'users.view'`))[0].id;
    const contentsView = (await db.query(`SELECT id FROM permissions WHERE name = 'contents.view'`))[0].id;
    const edited = await call(first, 'put', `/api/admin/roles/${viewer.id}`, admin.token, {
      permission_ids: [usersView, contentsView],
    });
    expect(edited.status).toBe(200);
    expect((await call(second, 'get', '/api/admin/users', member.token)).status).toBe(200);

    // Deleting a role takes its permissions away at once.
    expect((await call(first, 'delete', `/api/admin/roles/${viewer.id}`, admin.token)).status).toBe(200);
    expect((await call(second, 'get', '/api/admin/users', member.token)).status).toBe(403);
    expect(await permissionsOn(second, member.token)).toEqual([]);

    // Adding a role back works the same way.
    expect(
      (await call(second, 'post', `/api/admin/users/${member.id}/roles`, admin.token, { role_ids: [people.id] }))
        .status,
    ).toBe(200);
    expect((await call(first, 'get', '/api/admin/users', member.token)).status).toBe(200);
  });

  it('drop a deleted user at once on every instance', async () => {
    const admin = await callerWithRoles(first, db, ['admin']);
    const member = await callerWithRoles(first, db, ['user']);
    expect((await call(second, 'get', '/api/auth/me', member.token)).status).toBe(200);
    expect((await call(first, 'delete', `/api/admin/users/${member.id}`, admin.token)).status).toBe(200);
    await expectPublished(member.id);

    expect((await call(second, 'get', '/api/auth/me', member.token)).status).toBe(401);
  });

  it('follow a permission created and deleted on another instance for admins', async () => {
    const admin = await callerWithRoles(first, db, ['admin']);
    const name = `audit${Date.now().toString(36)}.view`;
    expect(await permissionsOn(second, admin.token)).not.toContain(name);
    const before = await globalVersion();
    const created = await call(first, 'post', '/api/admin/permissions', admin.token, { name });
    if (redis) expect(await globalVersion()).toBeGreaterThan(before);
    expect(await permissionsOn(second, admin.token)).toContain(name);

    await call(first, 'delete', `/api/admin/permissions/${created.body.data.id}`, admin.token);
    expect(await permissionsOn(second, admin.token)).not.toContain(name);
  });
});
