import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { useTestApp } from '../support/fixture.js';
import { callerWithPermissions, call, type Caller } from '../support/rbac-factory.js';
import { loginTokens, registerUser } from '../support/auth-factory.js';
import { EVERY_PERMISSION } from '../support/seeded-permissions.js';

/**
 * "Nobody grants what they do not hold; nobody acts on an account more privileged than their
 * own; the admin role keeps every permission": each reproduction as an outside client sees it.
 */
describe('privilege escalation through the admin routes', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  let admin: Caller;
  let adminRoleId: string;

  const fixture = useTestApp();
  beforeAll(async () => {
    ({ app, db } = fixture);
    [{ id: adminRoleId }] = await db.query(`SELECT id FROM roles WHERE name = 'admin'`);
    const user = await registerUser(app);
    await db.query(`INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2)`, [user.id, adminRoleId]);
    const tokens = await loginTokens(app, user);
    admin = { ...user, tokens, token: tokens.access_token };
  });

  const permissionIds = async (names: readonly string[]): Promise<string[]> =>
    (await db.query(`SELECT id FROM permissions WHERE name = ANY($1) ORDER BY name`, [names])).map(
      (row: { id: string }) => row.id,
    );

  const refusals = async (
    actorId: string,
  ): Promise<
    {
      type: string;
      actor_id: string;
      target_type: string;
      target_id: string;
      ip: string | null;
      details: Record<string, unknown>;
    }[]
  > =>
    db.query(
      `SELECT type, actor_id, target_type, target_id, ip, details FROM audit_events WHERE actor_id = $1 AND type = 'authz.escalation_refused' ORDER BY created_at`,
      [actorId],
    );

  describe('acting on a more privileged account', () => {
    it("refuses users.edit removing an administrator's mobile and setting their password", async () => {
      const editor = await callerWithPermissions(app, db, ['users.edit']);
      const res = await call(app, 'put', `/api/admin/users/${admin.id}`, editor.token, {
        mobile: null,
        password: 'Quiet-Harbour-Falcon-93',
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toMatch(/audit\.view|contents\.|roles\.|settings\.|users\./);
      // The administrator still signs in with the old password.
      expect(
        (await call(app, 'post', '/api/auth/login', undefined, { email: admin.email, password: admin.password }))
          .status,
      ).toBe(200);
    });

    it("refuses users.edit changing an administrator's email", async () => {
      const editor = await callerWithPermissions(app, db, ['users.edit']);
      const res = await call(app, 'put', `/api/admin/users/${admin.id}`, editor.token, {
        email: `taken-over-${randomUUID()}@example.com`,
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      const [row] = await db.query(`SELECT email FROM users WHERE id = $1`, [admin.id]);
      expect(row.email).toBe(admin.email);
    });

    it('refuses users.delete deleting an administrator', async () => {
      const deleter = await callerWithPermissions(app, db, ['users.delete']);
      const res = await call(app, 'delete', `/api/admin/users/${admin.id}`, deleter.token);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect((await db.query(`SELECT id FROM users WHERE id = $1`, [admin.id])).length).toBe(1);
    });

    it('still lets an editor change an account whose permissions it holds', async () => {
      const editor = await callerWithPermissions(app, db, ['users.edit', 'contents.view']);
      const target = await callerWithPermissions(app, db, ['contents.view']);
      const res = await call(app, 'put', `/api/admin/users/${target.id}`, editor.token, { name: 'Renamed' });
      expect(res.status).toBe(200);
      expect(res.body.data.name).toBe('Renamed');
    });

    it('refuses changing the roles of a more privileged account', async () => {
      const editor = await callerWithPermissions(app, db, ['users.edit']);
      const target = await callerWithPermissions(app, db, ['settings.edit']);
      const [{ id: userRole }] = await db.query(`SELECT id FROM roles WHERE name = 'user'`);
      for (const res of [
        await call(app, 'post', `/api/admin/users/${target.id}/roles`, editor.token, { role_ids: [userRole] }),
        await call(app, 'put', `/api/admin/users/${target.id}/roles`, editor.token, { role_ids: [userRole] }),
        await call(app, 'delete', `/api/admin/users/${target.id}/roles/${userRole}`, editor.token),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
        expect(res.body.error.message).toContain('settings.edit');
      }
    });
  });

  describe('granting what the actor does not hold', () => {
    it('answers 409 to a role named "Admin" beside "admin", whatever its permissions', async () => {
      const creator = await callerWithPermissions(app, db, ['roles.create', 'users.edit']);
      for (const name of ['Admin', ' ADMIN ', 'admin']) {
        const res = await call(app, 'post', '/api/admin/roles', creator.token, {
          name,
          permission_ids: await permissionIds(EVERY_PERMISSION),
        });
        expect(res.status).toBe(409);
        expect(res.body.error.code).toBe('CONFLICT');
      }
    });

    it('refuses creating a role with permissions the creator lacks, naming one', async () => {
      const creator = await callerWithPermissions(app, db, ['roles.create', 'users.edit']);
      const name = `superuser-${randomUUID()}`;
      const res = await call(app, 'post', '/api/admin/roles', creator.token, {
        name,
        permission_ids: await permissionIds(EVERY_PERMISSION),
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toMatch(
        /audit\.view|contents\.|roles\.(view|edit|delete)|settings\.|users\.(view|create|delete)/,
      );
      expect(await db.query(`SELECT id FROM roles WHERE name = $1`, [name])).toEqual([]);
    });

    it('lets a creator make a role out of permissions it holds', async () => {
      const creator = await callerWithPermissions(app, db, ['roles.create', 'users.edit']);
      const res = await call(app, 'post', '/api/admin/roles', creator.token, {
        name: `helper-${randomUUID()}`,
        permission_ids: await permissionIds(['users.edit']),
      });
      expect(res.status).toBe(201);
    });

    it('refuses giving itself a role that carries permissions it lacks', async () => {
      const editor = await callerWithPermissions(app, db, ['users.edit']);
      const [{ id: richRole }] = await db.query(`INSERT INTO roles (name) VALUES ($1) RETURNING id`, [
        `rich-${randomUUID()}`,
      ]);
      await db.query(
        `INSERT INTO role_permissions (role_id, permission_id) SELECT $1, id FROM permissions WHERE name IN ('users.delete', 'settings.edit')`,
        [richRole],
      );
      for (const method of ['post', 'put'] as const) {
        const res = await call(app, method, `/api/admin/users/${editor.id}/roles`, editor.token, {
          role_ids: [richRole],
        });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
        expect(res.body.error.message).toMatch(/settings\.edit|users\.delete/);
      }
      const roles = await db.query(`SELECT role_id FROM user_roles WHERE user_id = $1 AND role_id = $2`, [
        editor.id,
        richRole,
      ]);
      expect(roles).toEqual([]);
    });

    it('keeps the message of the admin-role rule', async () => {
      const editor = await callerWithPermissions(app, db, ['users.edit']);
      const res = await call(app, 'post', `/api/admin/users/${editor.id}/roles`, editor.token, {
        role_ids: [adminRoleId],
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toBe('You have no permission to assign the admin role.');
    });

    it('refuses users.edit with roles.edit granting admin, which carries more than they hold', async () => {
      const editor = await callerWithPermissions(app, db, ['users.edit', 'roles.edit']);
      const res = await call(app, 'post', `/api/admin/users/${editor.id}/roles`, editor.token, {
        role_ids: [adminRoleId],
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    });

    it('refuses adding to a role a permission the editor lacks', async () => {
      const editor = await callerWithPermissions(app, db, ['roles.edit', 'contents.view']);
      const created = await call(app, 'post', '/api/admin/roles', admin.token, {
        name: `plain-${randomUUID()}`,
        permission_ids: await permissionIds(['contents.view']),
      });
      const res = await call(app, 'put', `/api/admin/roles/${created.body.data.id}`, editor.token, {
        permission_ids: await permissionIds(['contents.view', 'users.delete']),
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toContain('users.delete');
      const ok = await call(app, 'put', `/api/admin/roles/${created.body.data.id}`, editor.token, {
        display_name: 'Plain',
      });
      expect(ok.status).toBe(200);
    });

    it('refuses editing or deleting a role that carries a permission the actor lacks', async () => {
      const actor = await callerWithPermissions(app, db, ['roles.edit', 'roles.delete']);
      const created = await call(app, 'post', '/api/admin/roles', admin.token, {
        name: `ops-${randomUUID()}`,
        permission_ids: await permissionIds(['settings.edit']),
      });
      const id = created.body.data.id;
      const edit = await call(app, 'put', `/api/admin/roles/${id}`, actor.token, { permission_ids: [] });
      expect(edit.status).toBe(403);
      expect(edit.body.error.message).toContain('settings.edit');
      const remove = await call(app, 'delete', `/api/admin/roles/${id}`, actor.token);
      expect(remove.status).toBe(403);
      expect(remove.body.error.code).toBe('FORBIDDEN');
      expect(
        (await call(app, 'get', `/api/admin/roles/${id}`, admin.token)).body.data.permissions.map(
          (p: { name: string }) => p.name,
        ),
      ).toEqual(['settings.edit']);
    });

    it('refuses editing or deleting a permission the actor lacks', async () => {
      const actor = await callerWithPermissions(app, db, ['roles.edit', 'roles.delete']);
      const created = await call(app, 'post', '/api/admin/permissions', admin.token, {
        name: `reports${randomUUID().slice(0, 8)}.export`,
      });
      expect(created.status).toBe(201);
      const id = created.body.data.id;
      expect(
        (await call(app, 'put', `/api/admin/permissions/${id}`, actor.token, { display_name: 'Export' })).status,
      ).toBe(403);
      expect((await call(app, 'delete', `/api/admin/permissions/${id}`, actor.token)).status).toBe(403);
      expect((await call(app, 'delete', `/api/admin/permissions/${id}`, admin.token)).status).toBe(200);
    });
  });

  describe('the admin role', () => {
    it('cannot lose a permission: 403 SYSTEM_PROTECTED, even for an administrator', async () => {
      for (const permission_ids of [
        [],
        await permissionIds(EVERY_PERMISSION.filter((name) => name !== 'audit.view')),
      ]) {
        const res = await call(app, 'put', `/api/admin/roles/${adminRoleId}`, admin.token, { permission_ids });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('SYSTEM_PROTECTED');
      }
      const role = await call(app, 'get', `/api/admin/roles/${adminRoleId}`, admin.token);
      expect(role.body.data.permissions.map((p: { name: string }) => p.name).sort()).toEqual(
        expect.arrayContaining(EVERY_PERMISSION),
      );
      // (That the same set is no loss is tried in privilege-matrix.e2e-spec.ts, on a database of
      // its own: here parallel files add permissions to admin at any moment.)
    });

    it('cannot be renamed into a clash: a role named " Admin " is 409', async () => {
      const created = await call(app, 'post', '/api/admin/roles', admin.token, { name: `other-${randomUUID()}` });
      const res = await call(app, 'put', `/api/admin/roles/${created.body.data.id}`, admin.token, { name: ' Admin ' });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
    });
  });

  describe('audit trail', () => {
    it('writes an authz.escalation_refused row with actor, target and client address for each refusal', async () => {
      const editor = await callerWithPermissions(app, db, ['users.edit', 'users.delete', 'roles.edit']);
      await call(app, 'put', `/api/admin/users/${admin.id}`, editor.token, { name: 'Mallory' });
      await call(app, 'delete', `/api/admin/users/${admin.id}`, editor.token);
      await call(app, 'put', `/api/admin/roles/${adminRoleId}`, editor.token, { display_name: 'Nobody' });
      const rows = await refusals(editor.id);
      expect(rows.map((row) => [row.target_type, row.target_id])).toEqual([
        ['user', admin.id],
        ['user', admin.id],
        ['role', adminRoleId],
      ]);
      for (const row of rows) {
        expect(row.actor_id).toBe(editor.id);
        expect(row.ip).toEqual(expect.any(String));
        expect(row.ip).not.toBe('');
        expect(row.details).toMatchObject({ missing: expect.arrayContaining(['settings.edit']) });
      }
    });

    it("records the admin-role rule and the admin role's protection too", async () => {
      const editor = await callerWithPermissions(app, db, ['users.edit']);
      await call(app, 'post', `/api/admin/users/${editor.id}/roles`, editor.token, { role_ids: [adminRoleId] });
      await call(app, 'put', `/api/admin/roles/${adminRoleId}`, admin.token, { permission_ids: [] });
      expect((await refusals(editor.id)).map((row) => [row.target_type, row.target_id])).toEqual([['user', editor.id]]);
      const protectedRows = (await refusals(admin.id)).filter((row) => row.target_id === adminRoleId);
      expect(protectedRows.length).toBeGreaterThanOrEqual(1);
    });
  });
});
