import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DataSource } from 'typeorm';
import { createTestApp } from '../support/test-app.js';
import { sharedDataSource } from '../support/test-database.js';
import { actorWithRoles, call, roleWithPermissions } from './rbac-kit.js';

const SETUPS: [string, Record<string, string>][] = [
  ['without Redis (PostgreSQL read on every request)', {}],
  ['with Redis (cached callers, shared versions)', { REDIS_URL: 'redis://127.0.0.1:6379' }],
];

describe.each(SETUPS)('effective permissions on two instances %s', (_name, env) => {
  let first: NestFastifyApplication;
  let second: NestFastifyApplication;
  let db: DataSource;

  beforeAll(async () => {
    [first, second] = [await createTestApp({ env }), await createTestApp({ env })];
    db = sharedDataSource();
    await db.initialize();
  });

  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
    await db.destroy();
  });

  const permissionsOn = async (app: NestFastifyApplication, token: string) =>
    ((await call(app, 'get', '/api/auth/me', token)).body.data.permissions as string[]).sort();

  it('are the union over all roles, and follow every change on the very next request anywhere', async () => {
    const admin = await actorWithRoles(first, db, ['admin']);
    const viewer = await roleWithPermissions(db, ['contents.view']);
    const people = await roleWithPermissions(db, ['users.view', 'contents.view']);
    const member = await actorWithRoles(first, db, [viewer.name, people.name]);

    expect(await permissionsOn(second, member.token)).toEqual(['contents.view', 'users.view']);
    // Warm both instances' caches.
    expect((await call(second, 'get', '/api/admin/users', member.token)).status).toBe(200);
    expect((await call(first, 'get', '/api/admin/users', member.token)).status).toBe(200);

    // Removing a role on one instance is seen by the other at once.
    const removed = await call(first, 'delete', `/api/admin/users/${member.id}/roles/${people.id}`, admin.token);
    expect(removed.status).toBe(200);
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
    const admin = await actorWithRoles(first, db, ['admin']);
    const member = await actorWithRoles(first, db, ['user']);
    expect((await call(second, 'get', '/api/auth/me', member.token)).status).toBe(200);
    expect((await call(first, 'delete', `/api/admin/users/${member.id}`, admin.token)).status).toBe(200);
    expect((await call(second, 'get', '/api/auth/me', member.token)).status).toBe(401);
  });

  it('follow a permission created and deleted on another instance for admins', async () => {
    const admin = await actorWithRoles(first, db, ['admin']);
    const name = `audit${Date.now().toString(36)}.view`;
    expect(await permissionsOn(second, admin.token)).not.toContain(name);
    const created = await call(first, 'post', '/api/admin/permissions', admin.token, { name });
    expect(await permissionsOn(second, admin.token)).toContain(name);
    await call(first, 'delete', `/api/admin/permissions/${created.body.data.id}`, admin.token);
    expect(await permissionsOn(second, admin.token)).not.toContain(name);
  });
});
