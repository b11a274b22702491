import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { useTestApp } from '../support/fixture.js';
import { callerWithOnlyPermissions, callerWithRoles, call, idOf, type Caller } from '../support/rbac-factory.js';

const unique = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

describe('role, permission and user administration', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  let admin: Caller;

  const fixture = useTestApp();
  beforeAll(async () => {
    ({ app, db } = fixture);
    admin = await callerWithRoles(app, db, ['admin']);
  });

  const as = (actor: Caller) => ({
    get: (path: string) => call(app, 'get', path, actor.token),
    post: (path: string, body: object) => call(app, 'post', path, actor.token, body),
    put: (path: string, body: object) => call(app, 'put', path, actor.token, body),
    delete: (path: string) => call(app, 'delete', path, actor.token),
  });

  describe('roles', () => {
    it('runs the whole lifecycle: create with permissions, read, update, replace permissions, delete', async () => {
      const [view, edit] = [
        await idOf(db, 'permissions', 'contents.view'),
        await idOf(db, 'permissions', 'contents.edit'),
      ];
      const name = unique('editor');
      const created = await as(admin).post('/api/admin/roles', {
        name,
        display_name: 'Editor',
        description: 'Edits contents',
        permission_ids: [view, edit],
      });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({
        name,
        display_name: 'Editor',
        description: 'Edits contents',
        is_system: false,
      });
      expect(created.body.data.permissions.map((p: { name: string }) => p.name)).toEqual([
        'contents.edit',
        'contents.view',
      ]);
      const id = created.body.data.id;

      const fetched = await as(admin).get(`/api/admin/roles/${id}`);
      expect(fetched.body.data).toEqual(created.body.data);
      const listed = await as(admin).get('/api/admin/roles');
      expect(listed.body.data.total).toBe(listed.body.data.items.length);
      expect(listed.body.data.items.map((role: { id: string }) => role.id)).toContain(id);

      const updated = await as(admin).put(`/api/admin/roles/${id}`, {
        display_name: 'Content editor',
        permission_ids: [view],
      });
      expect(updated.status).toBe(200);
      expect(updated.body.data).toMatchObject({ name, display_name: 'Content editor', description: 'Edits contents' });
      expect(updated.body.data.permissions).toEqual([{ id: view, name: 'contents.view' }]);

      const renamed = await as(admin).put(`/api/admin/roles/${id}`, { name: `${name}-2` });
      expect(renamed.body.data.name).toBe(`${name}-2`);

      expect((await as(admin).delete(`/api/admin/roles/${id}`)).body).toEqual({ success: true, data: {} });
      expect((await as(admin).get(`/api/admin/roles/${id}`)).status).toBe(404);
    });

    it('refuses a duplicate role name with 409 CONFLICT', async () => {
      const name = unique('dup');
      expect((await as(admin).post('/api/admin/roles', { name })).status).toBe(201);
      const again = await as(admin).post('/api/admin/roles', { name });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('CONFLICT');
    });

    it('refuses unknown permission ids with 400 and changes nothing', async () => {
      const view = await idOf(db, 'permissions', 'contents.view');
      const created = await as(admin).post('/api/admin/roles', { name: unique('keep'), permission_ids: [view] });
      const id = created.body.data.id;
      const res = await as(admin).put(`/api/admin/roles/${id}`, {
        display_name: 'Changed',
        permission_ids: [view, randomUUID()],
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      const after = await as(admin).get(`/api/admin/roles/${id}`);
      expect(after.body.data.display_name).toBeNull();
      expect(after.body.data.permissions).toEqual([{ id: view, name: 'contents.view' }]);

      const name = unique('never');
      expect((await as(admin).post('/api/admin/roles', { name, permission_ids: [randomUUID()] })).status).toBe(400);
      expect(await db.query(`SELECT 1 FROM roles WHERE name = $1`, [name])).toHaveLength(0);
    });

    it.each([
      ['is_system', { is_system: true }],
      ['id', { id: randomUUID() }],
      ['created_at', { created_at: '2020-01-01T00:00:00Z' }],
    ])('refuses %s in a role body (mass assignment)', async (_field, extra) => {
      const create = await as(admin).post('/api/admin/roles', { name: unique('mass'), ...extra });
      expect(create.status).toBe(400);
      expect(create.body.error.code).toBe('VALIDATION_FAILED');
      const role = await as(admin).post('/api/admin/roles', { name: unique('mass') });
      const update = await as(admin).put(`/api/admin/roles/${role.body.data.id}`, extra);
      expect(update.status).toBe(400);
      expect((await as(admin).get(`/api/admin/roles/${role.body.data.id}`)).body.data.is_system).toBe(false);
    });

    it('answers a malformed id with 400 and an unknown one with 404', async () => {
      for (const path of ['/api/admin/roles/not-a-uuid', '/api/admin/roles/123']) {
        const res = await as(admin).get(path);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
      }
      for (const res of [
        await as(admin).get(`/api/admin/roles/${randomUUID()}`),
        await as(admin).put(`/api/admin/roles/${randomUUID()}`, { display_name: 'x' }),
        await as(admin).delete(`/api/admin/roles/${randomUUID()}`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    });

    it('refuses names over 255 characters and non-UUID permission ids', async () => {
      expect((await as(admin).post('/api/admin/roles', { name: 'r'.repeat(256) })).status).toBe(400);
      expect(
        (await as(admin).post('/api/admin/roles', { name: unique('r'), display_name: 'd'.repeat(256) })).status,
      ).toBe(400);
      expect((await as(admin).post('/api/admin/roles', { name: unique('r'), permission_ids: ['nope'] })).status).toBe(
        400,
      );
      expect((await as(admin).post('/api/admin/roles', { name: unique('r'), permission_ids: 'nope' })).status).toBe(
        400,
      );
    });
  });

  describe('system rows', () => {
    it.each(['admin', 'user'])('refuses to delete the %s role with 403 SYSTEM_PROTECTED', async (name) => {
      const res = await as(admin).delete(`/api/admin/roles/${await idOf(db, 'roles', name)}`);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('SYSTEM_PROTECTED');
      expect(await db.query(`SELECT 1 FROM roles WHERE name = $1`, [name])).toHaveLength(1);
    });

    it('refuses to rename a system role, but lets its permissions and display name change', async () => {
      const id = await idOf(db, 'roles', 'user');
      const rename = await as(admin).put(`/api/admin/roles/${id}`, { name: 'member' });
      expect(rename.status).toBe(403);
      expect(rename.body.error.code).toBe('SYSTEM_PROTECTED');

      const sameName = await as(admin).put(`/api/admin/roles/${id}`, { name: 'user', description: 'Signed-in users.' });
      expect(sameName.status).toBe(200);

      const before = (await as(admin).get(`/api/admin/roles/${id}`)).body.data.permissions.map(
        (p: { id: string }) => p.id,
      );
      const view = await idOf(db, 'permissions', 'contents.view');
      const changed = await as(admin).put(`/api/admin/roles/${id}`, { permission_ids: [view] });
      expect(changed.status).toBe(200);
      expect(changed.body.data.permissions).toEqual([{ id: view, name: 'contents.view' }]);
      await as(admin).put(`/api/admin/roles/${id}`, { permission_ids: before });
    });

    it('refuses to rename or delete a system permission, but lets its description change', async () => {
      const id = await idOf(db, 'permissions', 'users.view');
      const rename = await as(admin).put(`/api/admin/permissions/${id}`, { name: 'people.view' });
      expect(rename.status).toBe(403);
      expect(rename.body.error.code).toBe('SYSTEM_PROTECTED');
      const del = await as(admin).delete(`/api/admin/permissions/${id}`);
      expect(del.status).toBe(403);
      expect(del.body.error.code).toBe('SYSTEM_PROTECTED');
      const describe = await as(admin).put(`/api/admin/permissions/${id}`, { description: 'See the user list.' });
      expect(describe.status).toBe(200);
      expect(describe.body.data).toMatchObject({
        name: 'users.view',
        description: 'See the user list.',
        is_system: true,
      });
    });

    it('refuses is_system in a permission body', async () => {
      const res = await as(admin).post('/api/admin/permissions', { name: `${unique('x')}.view`, is_system: true });
      expect(res.status).toBe(400);
      const id = await idOf(db, 'permissions', 'users.view');
      expect((await as(admin).put(`/api/admin/permissions/${id}`, { is_system: false })).status).toBe(400);
    });
  });

  describe('permissions', () => {
    it('creates a permission that the admin role holds at once, updates and deletes it', async () => {
      const name = `${unique('reports')}.view`;
      const created = await as(admin).post('/api/admin/permissions', {
        name,
        display_name: 'View reports',
        group_name: 'Reports',
      });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({
        name,
        display_name: 'View reports',
        group_name: 'Reports',
        is_system: false,
      });

      const adminRole = await as(admin).get(`/api/admin/roles/${await idOf(db, 'roles', 'admin')}`);
      expect(adminRole.body.data.permissions.map((p: { name: string }) => p.name)).toContain(name);
      // The admin's very next request carries it.
      expect((await call(app, 'get', '/api/auth/me', admin.token)).body.data.permissions).toContain(name);

      const id = created.body.data.id;
      const renamed = await as(admin).put(`/api/admin/permissions/${id}`, { name: name.replace('.view', '.export') });
      expect(renamed.body.data.name).toBe(name.replace('.view', '.export'));
      expect((await as(admin).delete(`/api/admin/permissions/${id}`)).status).toBe(200);
      expect((await as(admin).get(`/api/admin/permissions/${id}`)).status).toBe(404);
    });

    it.each(['reports', 'Reports.View', 'reports.view.all', '.view', 'reports.', 'rep orts.view'])(
      'refuses the name %j (not resource.action)',
      async (name) => {
        const res = await as(admin).post('/api/admin/permissions', { name });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
      },
    );

    it('refuses a duplicate permission name with 409', async () => {
      const res = await as(admin).post('/api/admin/permissions', { name: 'users.view' });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
    });

    it('lists every permission with the contract fields', async () => {
      const res = await as(admin).get('/api/admin/permissions');
      expect(res.body.data.total).toBe(res.body.data.items.length);
      const usersView = res.body.data.items.find((p: { name: string }) => p.name === 'users.view');
      expect(Object.keys(usersView).sort()).toEqual(
        ['created_at', 'description', 'display_name', 'group_name', 'id', 'is_system', 'name', 'updated_at'].sort(),
      );
      expect(usersView).toMatchObject({ display_name: 'View Users', group_name: 'Users', is_system: true });
    });
  });

  describe('users', () => {
    it('creates, lists with search and pagination, reads, updates and deletes a user, never showing a hash', async () => {
      const email = `${unique('managed')}@example.com`;
      const created = await as(admin).post('/api/admin/users', {
        name: 'Managed',
        email,
        password: 'Plum-Orbit-Lantern-42',
        mobile: '+49 176 9000 0555',
      });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({ name: 'Managed', email, mobile: '+4917690000555' });
      expect(created.body.data.roles.map((r: { name: string }) => r.name)).toEqual(['user']);
      const id = created.body.data.id;

      const search = await as(admin).get(`/api/admin/users?search=${encodeURIComponent(email.slice(0, 16))}`);
      expect(search.body.data).toMatchObject({ total: 1, page: 1, limit: 20 });
      expect(search.body.data.items[0].id).toBe(id);

      const page = await as(admin).get('/api/admin/users?page=1&limit=1');
      expect(page.body.data.items).toHaveLength(1);
      expect(page.body.data.total).toBeGreaterThan(1);

      const updated = await as(admin).put(`/api/admin/users/${id}`, { name: 'Renamed', mobile: null });
      expect(updated.body.data).toMatchObject({ name: 'Renamed', mobile: null });

      for (const body of [
        created.body,
        search.body,
        updated.body,
        (await as(admin).get(`/api/admin/users/${id}`)).body,
      ]) {
        expect(JSON.stringify(body)).not.toMatch(/argon2|password/i);
      }
      expect((await as(admin).delete(`/api/admin/users/${id}`)).status).toBe(200);
      expect((await as(admin).get(`/api/admin/users/${id}`)).status).toBe(404);
    });

    it('treats % and _ in a search as plain characters', async () => {
      const res = await as(admin).get('/api/admin/users?search=%25');
      expect(res.status).toBe(200);
      expect(res.body.data.total).toBe(0);
    });

    it('refuses bad pagination and unknown query parameters', async () => {
      for (const query of ['page=0', 'limit=101', 'limit=abc', 'sort=name']) {
        expect((await as(admin).get(`/api/admin/users?${query}`)).status).toBe(400);
      }
    });

    it('refuses a duplicate email with 409', async () => {
      const email = `${unique('dup')}@example.com`;
      await as(admin).post('/api/admin/users', { name: 'A', email, password: 'Plum-Orbit-Lantern-42' });
      const res = await as(admin).post('/api/admin/users', {
        name: 'B',
        email: email.toUpperCase(),
        password: 'Plum-Orbit-Lantern-42',
      });
      expect(res.status).toBe(409);
    });

    it('names the email as the taken field on create, even when the address contains "mobile"', async () => {
      const email = `mobile.${unique('user')}@example.com`;
      expect(
        (await as(admin).post('/api/admin/users', { name: 'A', email, password: 'Plum-Orbit-Lantern-42' })).status,
      ).toBe(201);
      const res = await as(admin).post('/api/admin/users', { name: 'B', email, password: 'Plum-Orbit-Lantern-42' });
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual({
        code: 'CONFLICT',
        message: 'This email is already registered.',
        details: [{ field: 'email', message: 'email is already registered' }],
      });
    });

    it('names the email as the taken field on update, even when the address contains "mobile"', async () => {
      const email = `mobile.${unique('user')}@example.com`;
      await as(admin).post('/api/admin/users', { name: 'A', email, password: 'Plum-Orbit-Lantern-42' });
      const other = await as(admin).post('/api/admin/users', {
        name: 'B',
        email: `${unique('other')}@example.com`,
        password: 'Plum-Orbit-Lantern-42',
      });
      const res = await as(admin).put(`/api/admin/users/${other.body.data.id}`, { email });
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual({
        code: 'CONFLICT',
        message: 'This email is already registered.',
        details: [{ field: 'email', message: 'email is already registered' }],
      });
    });

    it('names the mobile as the taken field on create and update', async () => {
      const mobile = '+49 176 9000 0777';
      const first = await as(admin).post('/api/admin/users', {
        name: 'A',
        email: `${unique('holder')}@example.com`,
        password: 'Plum-Orbit-Lantern-42',
        mobile,
      });
      expect(first.status).toBe(201);
      const expected = {
        code: 'CONFLICT',
        message: 'This mobile is already registered.',
        details: [{ field: 'mobile', message: 'mobile is already registered' }],
      };
      const created = await as(admin).post('/api/admin/users', {
        name: 'B',
        email: `${unique('second')}@example.com`,
        password: 'Plum-Orbit-Lantern-42',
        mobile,
      });
      expect(created.status).toBe(409);
      expect(created.body.error).toEqual(expected);
      const other = await as(admin).post('/api/admin/users', {
        name: 'C',
        email: `${unique('third')}@example.com`,
        password: 'Plum-Orbit-Lantern-42',
      });
      const updated = await as(admin).put(`/api/admin/users/${other.body.data.id}`, { mobile });
      expect(updated.status).toBe(409);
      expect(updated.body.error).toEqual(expected);
      await as(admin).delete(`/api/admin/users/${first.body.data.id}`);
    });

    it('signs a user out everywhere when an administrator sets their password', async () => {
      const victim = await callerWithRoles(app, db, ['user']);
      expect((await call(app, 'get', '/api/auth/me', victim.token)).status).toBe(200);
      await as(admin).put(`/api/admin/users/${victim.id}`, { password: 'Fresh-Quartz-Meadow-77' });
      expect((await call(app, 'get', '/api/auth/me', victim.token)).status).toBe(401);
    });
  });

  describe('handler-level checks', () => {
    it('refuses editing a user without users.edit, saying so', async () => {
      const viewer = await callerWithOnlyPermissions(app, db, ['users.view']);
      const target = await callerWithRoles(app, db, ['user']);
      const res = await call(app, 'put', `/api/admin/users/${target.id}`, viewer.token, { name: 'Nope' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toMatch(/no permission to edit users/i);
    });

    it('refuses assigning the admin role without roles.edit, saying so, and changes nothing', async () => {
      const editor = await callerWithOnlyPermissions(app, db, ['users.edit']);
      const target = await callerWithRoles(app, db, ['user']);
      const adminRole = await idOf(db, 'roles', 'admin');
      for (const res of [
        await call(app, 'post', `/api/admin/users/${target.id}/roles`, editor.token, { role_ids: [adminRole] }),
        await call(app, 'put', `/api/admin/users/${target.id}/roles`, editor.token, { role_ids: [adminRole] }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error.message).toMatch(/no permission to assign the admin role/i);
      }
      expect((await call(app, 'get', '/api/auth/me', target.token)).body.data.roles).toEqual(['user']);
    });

    it('lets users.edit assign other roles, and only someone holding what admin carries assign admin', async () => {
      const editor = await callerWithOnlyPermissions(app, db, ['users.edit']);
      const target = await callerWithRoles(app, db, ['user']);
      const custom = await as(admin).post('/api/admin/roles', { name: unique('plain') });
      const add = await call(app, 'post', `/api/admin/users/${target.id}/roles`, editor.token, {
        role_ids: [custom.body.data.id],
      });
      expect(add.status).toBe(200);
      expect(add.body.data.roles.map((r: { name: string }) => r.name).sort()).toEqual(
        [custom.body.data.name, 'user'].sort(),
      );

      // Nobody grants what they do not hold: admin carries every permission, so users.edit with
      // roles.edit is not enough; a holder of admin is.
      const adminRole = await idOf(db, 'roles', 'admin');
      const rolesEditor = await callerWithOnlyPermissions(app, db, ['users.edit', 'roles.edit']);
      const refused = await call(app, 'post', `/api/admin/users/${target.id}/roles`, rolesEditor.token, {
        role_ids: [adminRole],
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
      const superEditor = await callerWithRoles(app, db, ['admin']);
      const grant = await call(app, 'post', `/api/admin/users/${target.id}/roles`, superEditor.token, {
        role_ids: [adminRole],
      });
      expect(grant.status).toBe(200);
      expect((await call(app, 'get', '/api/auth/me', target.token)).body.data.roles).toContain('admin');
      // Taking it away again needs roles.edit as well.
      const revoke = await call(app, 'delete', `/api/admin/users/${target.id}/roles/${adminRole}`, editor.token);
      expect(revoke.status).toBe(403);
      expect(revoke.body.error.message).toMatch(/no permission to assign the admin role/i);
    });
  });

  describe('user-role assignment', () => {
    it('adds idempotently, replaces the set, and removes one role', async () => {
      const target = await callerWithRoles(app, db, ['user']);
      const a = (await as(admin).post('/api/admin/roles', { name: unique('a') })).body.data;
      const b = (await as(admin).post('/api/admin/roles', { name: unique('b') })).body.data;
      const userRole = await idOf(db, 'roles', 'user');
      const path = `/api/admin/users/${target.id}/roles`;

      await as(admin).post(path, { role_ids: [a.id] });
      const twice = await as(admin).post(path, { role_ids: [a.id] });
      expect(twice.body.data.roles.map((r: { id: string }) => r.id).sort()).toEqual([a.id, userRole].sort());

      const replaced = await as(admin).put(path, { role_ids: [b.id] });
      expect(replaced.body.data.roles).toEqual([{ id: b.id, name: b.name }]);

      const removed = await as(admin).delete(`${path}/${b.id}`);
      expect(removed.status).toBe(200);
      expect(removed.body.data.roles).toEqual([]);
    });

    it('refuses unknown role ids with 400 and changes nothing', async () => {
      const target = await callerWithRoles(app, db, ['user']);
      const a = (await as(admin).post('/api/admin/roles', { name: unique('a') })).body.data;
      const res = await as(admin).post(`/api/admin/users/${target.id}/roles`, { role_ids: [a.id, randomUUID()] });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(
        (await as(admin).get(`/api/admin/users/${target.id}`)).body.data.roles.map((r: { name: string }) => r.name),
      ).toEqual(['user']);
    });

    it('answers an unknown user or role in the path with 404 and a bad body with 400', async () => {
      const a = (await as(admin).post('/api/admin/roles', { name: unique('a') })).body.data;
      expect((await as(admin).post(`/api/admin/users/${randomUUID()}/roles`, { role_ids: [a.id] })).status).toBe(404);
      const target = await callerWithRoles(app, db, ['user']);
      expect((await as(admin).delete(`/api/admin/users/${target.id}/roles/${randomUUID()}`)).status).toBe(404);
      expect((await as(admin).delete(`/api/admin/users/${target.id}/roles/nope`)).status).toBe(400);
      for (const body of [
        {},
        { role_ids: 'x' },
        { role_ids: ['x'] },
        { role_ids: [a.id, a.id] },
        { role_ids: [a.id], extra: 1 },
      ]) {
        expect((await as(admin).post(`/api/admin/users/${target.id}/roles`, body)).status).toBe(400);
      }
    });
  });
});
