import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { useTestApp } from '../support/fixture.js';
import { callerWithOnlyPermissions, callerWithRoles, call, type Caller } from '../support/rbac-factory.js';

type Method = 'get' | 'post' | 'put' | 'delete';

interface RouteCase {
  name: string;
  method: Method;
  /** Builds the path and body; runs once per case with fresh rows. */
  setup: (ctx: {
    db: DataSource;
    app: NestFastifyApplication;
    actor?: Caller;
  }) => Promise<{ path: string; body?: object; ok: number }>;
  permission: string[];
}

const unique = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

async function customRole(db: DataSource) {
  const [{ id }] = await db.query(`INSERT INTO roles (name) VALUES ($1) RETURNING id`, [unique('r')]);
  return id as string;
}

/** A new permission; given an actor, held by it too (nobody edits or deletes a permission they lack). */
async function customPermission(db: DataSource, holder?: Caller) {
  const [{ id }] = await db.query(`INSERT INTO permissions (name) VALUES ($1) RETURNING id`, [`${unique('res')}.view`]);
  if (holder) {
    await db.query(
      `INSERT INTO role_permissions (role_id, permission_id)
       SELECT ur.role_id, $2 FROM user_roles ur JOIN roles r ON r.id = ur.role_id WHERE ur.user_id = $1 AND NOT r.is_system`,
      [holder.id, id],
    );
  }
  return id as string;
}

async function plainUser(db: DataSource) {
  const [{ id }] = await db.query(`INSERT INTO users (name, email, password_hash) VALUES ('P', $1, 'x') RETURNING id`, [
    `${unique('plain')}@example.com`,
  ]);
  return id as string;
}

const ROUTES: RouteCase[] = [
  {
    name: 'list roles',
    method: 'get',
    permission: ['roles.view'],
    setup: async () => ({ path: '/api/admin/roles', ok: 200 }),
  },
  {
    name: 'get role',
    method: 'get',
    permission: ['roles.view'],
    setup: async ({ db }) => ({ path: `/api/admin/roles/${await customRole(db)}`, ok: 200 }),
  },
  {
    name: 'create role',
    method: 'post',
    permission: ['roles.create'],
    setup: async () => ({ path: '/api/admin/roles', body: { name: unique('new') }, ok: 201 }),
  },
  {
    name: 'update role',
    method: 'put',
    permission: ['roles.edit'],
    setup: async ({ db }) => ({
      path: `/api/admin/roles/${await customRole(db)}`,
      body: { display_name: 'X' },
      ok: 200,
    }),
  },
  {
    name: 'delete role',
    method: 'delete',
    permission: ['roles.delete'],
    setup: async ({ db }) => ({ path: `/api/admin/roles/${await customRole(db)}`, ok: 200 }),
  },
  {
    name: 'list permissions',
    method: 'get',
    permission: ['roles.view'],
    setup: async () => ({ path: '/api/admin/permissions', ok: 200 }),
  },
  {
    name: 'create permission',
    method: 'post',
    permission: ['roles.create'],
    setup: async () => ({ path: '/api/admin/permissions', body: { name: `${unique('res')}.view` }, ok: 201 }),
  },
  {
    name: 'update permission',
    method: 'put',
    permission: ['roles.edit'],
    setup: async ({ db, actor }) => ({
      path: `/api/admin/permissions/${await customPermission(db, actor)}`,
      body: { display_name: 'X' },
      ok: 200,
    }),
  },
  {
    name: 'delete permission',
    method: 'delete',
    permission: ['roles.delete'],
    setup: async ({ db, actor }) => ({ path: `/api/admin/permissions/${await customPermission(db, actor)}`, ok: 200 }),
  },
  {
    name: 'list users',
    method: 'get',
    permission: ['users.view'],
    setup: async () => ({ path: '/api/admin/users', ok: 200 }),
  },
  {
    name: 'get user',
    method: 'get',
    permission: ['users.view'],
    setup: async ({ db }) => ({ path: `/api/admin/users/${await plainUser(db)}`, ok: 200 }),
  },
  {
    name: 'create user',
    method: 'post',
    permission: ['users.create'],
    setup: async () => ({
      path: '/api/admin/users',
      body: { name: 'N', email: `${unique('c')}@example.com`, password: 'Plum-Orbit-Lantern-42' },
      ok: 201,
    }),
  },
  {
    name: 'update user',
    method: 'put',
    permission: ['users.edit'],
    setup: async ({ db }) => ({ path: `/api/admin/users/${await plainUser(db)}`, body: { name: 'Renamed' }, ok: 200 }),
  },
  {
    name: 'delete user',
    method: 'delete',
    permission: ['users.delete'],
    setup: async ({ db }) => ({ path: `/api/admin/users/${await plainUser(db)}`, ok: 200 }),
  },
  {
    name: 'add user roles',
    method: 'post',
    permission: ['users.edit'],
    setup: async ({ db }) => ({
      path: `/api/admin/users/${await plainUser(db)}/roles`,
      body: { role_ids: [await customRole(db)] },
      ok: 200,
    }),
  },
  {
    name: 'replace user roles',
    method: 'put',
    permission: ['users.edit'],
    setup: async ({ db }) => ({
      path: `/api/admin/users/${await plainUser(db)}/roles`,
      body: { role_ids: [await customRole(db)] },
      ok: 200,
    }),
  },
  {
    name: 'remove user role',
    method: 'delete',
    permission: ['users.edit'],
    setup: async ({ db }) => {
      const [userId, roleId] = [await plainUser(db), await customRole(db)];
      await db.query(`INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2)`, [userId, roleId]);
      return { path: `/api/admin/users/${userId}/roles/${roleId}`, ok: 200 };
    },
  },
];

describe('every administration route is guarded', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  let nobody: Caller;

  const fixture = useTestApp();
  beforeAll(async () => {
    ({ app, db } = fixture);
    nobody = await callerWithRoles(app, db, ['user']);
  });

  describe.each(ROUTES.map((route) => [route.name, route] as const))('%s', (_name, route) => {
    it('is refused without a token (401)', async () => {
      const { path, body } = await route.setup({ db, app });
      const res = await call(app, route.method, path, undefined, body);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    });

    it(`is refused without ${route.permission.join(', ')} (403)`, async () => {
      const { path, body } = await route.setup({ db, app });
      const res = await call(app, route.method, path, nobody.token, body);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toMatch(/users|roles|permission/i);
    });

    it(`is allowed with ${route.permission.join(', ')}`, async () => {
      const actor = await callerWithOnlyPermissions(app, db, route.permission);
      const { path, body, ok } = await route.setup({ db, app, actor });
      const res = await call(app, route.method, path, actor.token, body);
      expect(res.status).toBe(ok);
      expect(res.body.success).toBe(true);
    });
  });

  it('names the missing permission', async () => {
    const res = await call(app, 'get', '/api/admin/roles', nobody.token);
    expect(res.body.error.message).toContain('roles.view');
  });

  it('refuses an actor holding a different permission than the route needs', async () => {
    const viewer = await callerWithOnlyPermissions(app, db, ['users.view']);
    expect((await call(app, 'get', '/api/admin/users', viewer.token)).status).toBe(200);
    expect((await call(app, 'post', '/api/admin/roles', viewer.token, { name: unique('no') })).status).toBe(403);
    expect((await call(app, 'delete', `/api/admin/users/${await plainUser(db)}`, viewer.token)).status).toBe(403);
  });
});
