import request from 'supertest';
import { useTestApp } from '../support/fixture.js';
import { anEnabledAdmin, noEscalation } from './invariants.js';
import type { ModelState } from './model.js';
import { buildWorld, readFixed, readSnapshot, type Fixed, type Real, type WorldSpec } from './world.js';

/**
 * Histories the privilege model found breaking an invariant, kept as fixed tests. Each builds the
 * model's world (custom roles, accounts, their roles) and replays the shrunk history through HTTP.
 */
describe('privilege model regressions', () => {
  const fixture = useTestApp();
  let fixed: Fixed;
  let real: Real;
  let history = 0;

  beforeAll(async () => {
    fixed = await readFixed(fixture.app, fixture.db);
    real = {
      app: fixture.app,
      db: fixture.db,
      tokens: new Map(),
      start: { permissions: [], roles: [], users: [] },
      log: [],
      labels: new Map(),
      serial: { next: 0 },
    };
  });

  /** The index of a system permission, as a WorldSpec names it. */
  const permission = (name: string) => fixed.systemPermissions.findIndex((row) => row.name === name);
  const world = (spec: WorldSpec) => buildWorld(real, fixed, spec, history++);
  const as = (state: ModelState, label: string) => {
    const token = real.tokens.get(state.users.find((user) => user.label === label)!.id)!;
    const server = fixture.app.getHttpServer();
    const auth = <T extends { set(name: string, value: string): T }>(req: T) =>
      req.set('authorization', `Bearer ${token}`);
    return {
      post: (path: string, body: object = {}) => auth(request(server).post(path)).send(body),
      put: (path: string, body: object) => auth(request(server).put(path)).send(body),
      delete: (path: string) => auth(request(server).delete(path)),
    };
  };
  const idOf = (state: ModelState, label: string) => state.users.find((user) => user.label === label)!.id;

  it('a disabled holder of admin is not the administrator who remains: the last enabled one keeps the role (409)', async () => {
    // Found as: u0 gives u1 admin, u0 disables u1, u0 replaces its own roles with none → 200,
    // leaving no enabled account with admin.
    const state = await world({
      userRolePermissions: [],
      customRoles: [[]],
      users: [
        { roles: [0], disabled: false },
        { roles: [], disabled: false },
      ],
    });
    const u0 = idOf(state, 'u0');
    const u1 = idOf(state, 'u1');
    const admin = as(state, 'u0');

    expect((await admin.post(`/api/admin/users/${u1}/roles`, { role_ids: [fixed.adminRoleId] })).status).toBe(200);
    expect((await admin.post(`/api/admin/users/${u1}/disable`)).status).toBe(200);

    const replace = await admin.put(`/api/admin/users/${u0}/roles`, { role_ids: [] });
    expect(replace.status).toBe(409);
    expect(replace.body.error).toMatchObject({
      code: 'CONFLICT',
      message: 'The last administrator cannot lose the admin role.',
    });
    const remove = await admin.delete(`/api/admin/users/${u0}/roles/${fixed.adminRoleId}`);
    expect(remove.status).toBe(409);
    expect(remove.body.error.message).toBe('The last administrator cannot lose the admin role.');
    const del = await admin.delete(`/api/admin/users/${u0}`);
    expect(del.status).toBe(409);
    expect(del.body.error).toMatchObject({ code: 'CONFLICT', message: 'The last administrator cannot be deleted.' });
    expect(anEnabledAdmin(await readSnapshot(fixture.db))).toEqual([]);

    // Once the other holder is enabled again, the role may go.
    expect((await admin.post(`/api/admin/users/${u1}/enable`)).status).toBe(200);
    expect((await admin.delete(`/api/admin/users/${u0}/roles/${fixed.adminRoleId}`)).status).toBe(200);
    expect(anEnabledAdmin(await readSnapshot(fixture.db))).toEqual([]);
  });

  it('two removals of admin at once, the other holder disabled: one enabled administrator remains', async () => {
    const state = await world({
      userRolePermissions: [],
      customRoles: [[]],
      users: [
        { roles: [0], disabled: false },
        { roles: [0], disabled: false },
        { roles: [0], disabled: true },
      ],
    });
    const u0 = idOf(state, 'u0');
    const u1 = idOf(state, 'u1');
    const answers = await Promise.all([
      as(state, 'u0').delete(`/api/admin/users/${u1}/roles/${fixed.adminRoleId}`),
      as(state, 'u1').delete(`/api/admin/users/${u0}/roles/${fixed.adminRoleId}`),
    ]);
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    expect(anEnabledAdmin(await readSnapshot(fixture.db))).toEqual([]);
  });

  it('creating a user grants what the user role holds: refused (403) when the creator lacks it', async () => {
    // Found as: the user role holds audit.view; u1, holding users.create alone, creates an account,
    // which then holds audit.view.
    const state = await world({
      userRolePermissions: [permission('audit.view')],
      customRoles: [[permission('users.create')], [permission('users.create'), permission('audit.view')]],
      users: [
        { roles: [0], disabled: false },
        { roles: [2], disabled: false },
        { roles: [3], disabled: false },
      ],
    });
    const before = await readSnapshot(fixture.db);
    const email = `made-by-u1-${history}@example.com`;
    const refused = await as(state, 'u1').post('/api/admin/users', {
      name: 'Made',
      email,
      password: 'Plum-Orbit-Lantern-42',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'FORBIDDEN',
      message: 'You cannot grant audit.view, a permission you do not hold.',
    });
    const after = await readSnapshot(fixture.db);
    expect(after.users).toHaveLength(before.users.length);
    expect(noEscalation(before, after, [idOf(state, 'u1')])).toEqual([]);

    // The same account made by someone who holds audit.view.
    const made = await as(state, 'u2').post('/api/admin/users', {
      name: 'Made',
      email,
      password: 'Plum-Orbit-Lantern-42',
    });
    expect(made.status).toBe(201);
    expect(noEscalation(before, await readSnapshot(fixture.db), [idOf(state, 'u2')])).toEqual([]);
  });

  it('deleting a role while a holder of it has their roles changed: no 500, and the role is gone from the holder', async () => {
    // Found as, at once: DELETE /api/admin/roles/{role-a} as u0 | DELETE /api/admin/users/{u2}/roles/{role-b}
    // as u0, u2 holding role-a → 500 (the role change wrote role-a back after its deletion, or deadlocked).
    // A race: tried several times, as the search met it.
    for (let attempt = 0; attempt < 12; attempt++) {
      const state = await world({
        userRolePermissions: [],
        customRoles: [[], []],
        users: [
          { roles: [0], disabled: false },
          { roles: [], disabled: false },
          { roles: [2, 3], disabled: false },
        ],
      });
      const roleA = state.roles.find((row) => row.name === 'role-a')!.id;
      const roleB = state.roles.find((row) => row.name === 'role-b')!.id;
      const u2 = idOf(state, 'u2');
      const admin = as(state, 'u0');
      const answers = await Promise.all([
        admin.delete(`/api/admin/roles/${roleA}`),
        attempt % 2
          ? admin.delete(`/api/admin/users/${u2}/roles/${roleB}`)
          : admin.put(`/api/admin/users/${u2}/roles`, { role_ids: [roleA] }),
      ]);
      expect(answers[0].status).toBe(200);
      expect(answers[1].status).toBeLessThan(500);
      const holder = (await readSnapshot(fixture.db)).users.find((row) => row.id === u2)!;
      expect(holder.roleIds).not.toContain(roleA);
    }
  });

  it('signing in while the account is being deleted: 200 or 401 INVALID_CREDENTIALS, never 500', async () => {
    // Found as, at once: DELETE /api/admin/users/{u1} as u0 | POST /api/auth/login as u1 → 500 (the
    // new session referenced an account deleted after its password was checked). A race: tried
    // several times.
    for (let attempt = 0; attempt < 12; attempt++) {
      const state = await world({
        userRolePermissions: [],
        customRoles: [[]],
        users: [
          { roles: [0], disabled: false },
          { roles: [], disabled: false },
        ],
      });
      const u1 = state.users.find((user) => user.label === 'u1')!;
      const [deleted, signIn] = await Promise.all([
        as(state, 'u0').delete(`/api/admin/users/${u1.id}`),
        request(fixture.app.getHttpServer())
          .post('/api/auth/login')
          .send({ email: u1.email, password: 'Plum-Orbit-Lantern-42' }),
      ]);
      expect(deleted.status).toBe(200);
      expect([200, 401]).toContain(signIn.status);
      if (signIn.status === 401)
        expect(signIn.body.error).toMatchObject({ code: 'INVALID_CREDENTIALS', message: 'Invalid credentials.' });
      const [{ count }] = await fixture.db.query(`SELECT count(*)::int AS count FROM sessions WHERE user_id = $1`, [
        u1.id,
      ]);
      expect(count).toBe(0);
    }
  });
});
