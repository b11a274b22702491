import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { loginTokens, registerUser, TEST_PASSWORD } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithPermissions } from '../support/rbac-factory.js';
import { EVERY_PERMISSION } from '../support/seeded-permissions.js';

type Method = 'post' | 'put' | 'delete';
interface Attempt {
  label: string;
  method: Method;
  path: string;
  body?: object;
}

/**
 * Every admin route that writes, tried by an actor holding exactly one permission, against what
 * an administrator holds: the admin account, the admin role, the system permissions the actor
 * lacks. Not one may succeed, and none may fail with a 5xx. (Reads are not escalations: a
 * `users.view` holder may read the admin account; `PUT /admin/settings` has no target.)
 */
describe('privilege matrix: one permission against the administrator', () => {
  const fixture = useTestApp();
  let db: DataSource;
  let app: NestFastifyApplication;
  let adminId: string;
  let adminEmail: string;
  let adminRoleId: string;
  const permissionIds = new Map<string, string>();

  beforeAll(async () => {
    ({ app, db } = fixture);
    [{ id: adminRoleId }] = await db.query(`SELECT id FROM roles WHERE name = 'admin'`);
    for (const row of await db.query(`SELECT id, name FROM permissions`)) permissionIds.set(row.name, row.id);
    const admin = await registerUser(app);
    await db.query(`INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2)`, [admin.id, adminRoleId]);
    await loginTokens(app, admin);
    adminId = admin.id;
    adminEmail = admin.email;
  });

  function attempts(own: string, selfId: string): Attempt[] {
    const every = EVERY_PERMISSION.map((name) => permissionIds.get(name)!);
    const list: Attempt[] = [
      {
        label: 'edit the admin account',
        method: 'put',
        path: `/api/admin/users/${adminId}`,
        body: { mobile: null, password: 'Quiet-Harbour-Falcon-93' },
      },
      {
        label: 'change the admin email',
        method: 'put',
        path: `/api/admin/users/${adminId}`,
        body: { email: `x-${randomUUID()}@example.com` },
      },
      { label: 'delete the admin account', method: 'delete', path: `/api/admin/users/${adminId}` },
      {
        label: 'add a role to the admin',
        method: 'post',
        path: `/api/admin/users/${adminId}/roles`,
        body: { role_ids: [adminRoleId] },
      },
      {
        label: 'replace the admin roles',
        method: 'put',
        path: `/api/admin/users/${adminId}/roles`,
        body: { role_ids: [] },
      },
      {
        label: 'take admin from the admin',
        method: 'delete',
        path: `/api/admin/users/${adminId}/roles/${adminRoleId}`,
      },
      {
        label: 'give itself admin',
        method: 'post',
        path: `/api/admin/users/${selfId}/roles`,
        body: { role_ids: [adminRoleId] },
      },
      {
        label: 'replace its roles with admin',
        method: 'put',
        path: `/api/admin/users/${selfId}/roles`,
        body: { role_ids: [adminRoleId] },
      },
      {
        label: 'create a user with the admin email',
        method: 'post',
        path: '/api/admin/users',
        body: { name: 'Twin', email: adminEmail, password: TEST_PASSWORD },
      },
      {
        label: 'create a role "Admin"',
        method: 'post',
        path: '/api/admin/roles',
        body: { name: 'Admin', permission_ids: every },
      },
      {
        label: 'create a role with every permission',
        method: 'post',
        path: '/api/admin/roles',
        body: { name: `root-${randomUUID()}`, permission_ids: every },
      },
      {
        label: 'rename the admin role',
        method: 'put',
        path: `/api/admin/roles/${adminRoleId}`,
        body: { display_name: 'Nobody' },
      },
      {
        label: 'empty the admin role',
        method: 'put',
        path: `/api/admin/roles/${adminRoleId}`,
        body: { permission_ids: [] },
      },
      { label: 'delete the admin role', method: 'delete', path: `/api/admin/roles/${adminRoleId}` },
      {
        label: 'create a permission twin',
        method: 'post',
        path: '/api/admin/permissions',
        body: { name: 'users.edit' },
      },
    ];
    for (const name of EVERY_PERMISSION.filter((name) => name !== own)) {
      const id = permissionIds.get(name)!;
      list.push(
        {
          label: `edit permission ${name}`,
          method: 'put',
          path: `/api/admin/permissions/${id}`,
          body: { display_name: 'Changed' },
        },
        { label: `delete permission ${name}`, method: 'delete', path: `/api/admin/permissions/${id}` },
      );
    }
    return list;
  }

  it.each(EVERY_PERMISSION)('an actor holding only %s succeeds at nothing and meets no 5xx', async (own) => {
    const actor = await callerWithPermissions(app, db, [own]);
    const outcomes: string[] = [];
    for (const attempt of attempts(own, actor.id)) {
      const res = await call(app, attempt.method, attempt.path, actor.token, attempt.body);
      if (res.status < 300 || res.status >= 500)
        outcomes.push(`${attempt.label}: ${res.status} ${JSON.stringify(res.body)}`);
      else expect(res.body.success).toBe(false);
    }
    expect(outcomes).toEqual([]);
    const [admin] = await db.query(
      `SELECT u.email, array_agg(r.name) AS roles FROM users u JOIN user_roles ur ON ur.user_id = u.id JOIN roles r ON r.id = ur.role_id WHERE u.id = $1 GROUP BY u.email`,
      [adminId],
    );
    expect(admin).toEqual({ email: adminEmail, roles: expect.arrayContaining(['admin']) });
    const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM role_permissions WHERE role_id = $1`, [
      adminRoleId,
    ]);
    expect(count).toBe(EVERY_PERMISSION.length);
  });

  it('lets an administrator update the admin role with its whole set, and with nothing less', async () => {
    const admin = await callerWithPermissions(app, db, []);
    await db.query(`INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2)`, [admin.id, adminRoleId]);
    const token = (await loginTokens(app, admin)).access_token;
    const every = EVERY_PERMISSION.map((name) => permissionIds.get(name)!);
    const same = await call(app, 'put', `/api/admin/roles/${adminRoleId}`, token, {
      display_name: 'Administrators',
      permission_ids: every,
    });
    expect(same.status).toBe(200);
    const less = await call(app, 'put', `/api/admin/roles/${adminRoleId}`, token, { permission_ids: every.slice(1) });
    expect(less.status).toBe(403);
    expect(less.body.error.code).toBe('SYSTEM_PROTECTED');
  });
});
