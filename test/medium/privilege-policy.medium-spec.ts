import { randomUUID } from 'node:crypto';
import { AccessRepository } from '../../src/rbac/access.repository.js';
import { isPrivileged, missingPermissions } from '../../src/rbac/privilege-policy.js';
import { assertMayActOn, assertMayGrant } from '../../src/rbac/privilege-refusal.js';
import { assignRoles, insertRole, insertUser, roleId, useMediumDatabase } from './medium-database.js';
import { EVERY_PERMISSION } from '../support/seeded-permissions.js';

describe('the privilege policy over rows of a real database', () => {
  const fixture = useMediumDatabase();
  let access: AccessRepository;
  beforeAll(() => {
    access = new AccessRepository(fixture.db);
  });

  /** A user holding new roles of exactly these permission sets. */
  async function userWith(...roles: (readonly string[])[]): Promise<string> {
    const userId = await insertUser(fixture.db);
    const ids = [];
    for (const permissions of roles) ids.push((await insertRole(fixture.db, permissions)).id);
    await assignRoles(fixture.db, userId, ids);
    return userId;
  }

  async function effective(userId: string) {
    const found = await access.findEffectiveAccess(userId);
    return found && { roles: [...found.roles].sort(), permissions: [...found.permissions].sort() };
  }

  describe('effective access', () => {
    it('of a user with no role is empty; of nobody is null', async () => {
      expect(await access.findEffectiveAccess(await insertUser(fixture.db))).toEqual({ roles: [], permissions: [] });
      expect(await access.findEffectiveAccess(randomUUID())).toBeNull();
    });

    it('is the union of the roles’ permissions, each once', async () => {
      const userId = await insertUser(fixture.db);
      const editors = await insertRole(fixture.db, ['contents.view', 'contents.edit']);
      const readers = await insertRole(fixture.db, ['contents.view', 'users.view']);
      const empty = await insertRole(fixture.db, []);
      await assignRoles(fixture.db, userId, [editors.id, readers.id, empty.id]);
      expect(await effective(userId)).toEqual({
        roles: [editors.name, readers.name, empty.name].sort(),
        permissions: ['contents.edit', 'contents.view', 'users.view'],
      });
    });

    it('of the seeded admin role is every permission; of the user role, none', async () => {
      const admin = await insertUser(fixture.db);
      await assignRoles(fixture.db, admin, [await roleId(fixture.db, 'admin')]);
      expect(await effective(admin)).toEqual({ roles: ['admin'], permissions: [...EVERY_PERMISSION].sort() });

      const plain = await insertUser(fixture.db);
      await assignRoles(fixture.db, plain, [await roleId(fixture.db, 'user')]);
      expect(await effective(plain)).toEqual({ roles: ['user'], permissions: [] });
    });

    it('follows a permission taken from a role at once', async () => {
      const userId = await insertUser(fixture.db);
      const role = await insertRole(fixture.db, ['users.view', 'users.edit']);
      await assignRoles(fixture.db, userId, [role.id]);
      await fixture.db.query(
        `DELETE FROM role_permissions WHERE role_id = $1 AND permission_id = (SELECT id FROM permissions WHERE name = 'users.edit')`,
        [role.id],
      );
      expect((await effective(userId))?.permissions).toEqual(['users.view']);
      expect(await access.isPrivilegedAccount(userId)).toBe(false);
    });
  });

  describe('isPrivilegedAccount', () => {
    it.each([
      ['settings.edit alone', true, [['settings.edit']]],
      ['users.create among views', true, [['users.view', 'users.create']]],
      ['roles.delete in a second role', true, [['contents.view'], ['roles.delete']]],
      [
        'every view and the contents',
        false,
        [
          ['users.view', 'roles.view', 'settings.view', 'audit.view'],
          ['contents.view', 'contents.create', 'contents.edit', 'contents.delete'],
        ],
      ],
      ['an empty role', false, [[]]],
    ] as const)('roles of %s: privileged %s', async (_label, expected, roles) => {
      expect(await access.isPrivilegedAccount(await userWith(...roles))).toBe(expected);
    });

    it('is true for a holder of the admin role, false for the user role, a user with none, and nobody', async () => {
      const admin = await insertUser(fixture.db);
      await assignRoles(fixture.db, admin, [await roleId(fixture.db, 'admin')]);
      const plain = await insertUser(fixture.db);
      await assignRoles(fixture.db, plain, [await roleId(fixture.db, 'user')]);
      expect(await access.isPrivilegedAccount(admin)).toBe(true);
      expect(await access.isPrivilegedAccount(plain)).toBe(false);
      expect(await access.isPrivilegedAccount(await insertUser(fixture.db))).toBe(false);
      expect(await access.isPrivilegedAccount(randomUUID())).toBe(false);
    });

    it('agrees with the pure isPrivileged on the rows read', async () => {
      for (const roles of [[['users.delete']], [['audit.view']], [['contents.edit'], ['settings.view']]]) {
        const userId = await userWith(...roles);
        const found = (await access.findEffectiveAccess(userId))!;
        expect(await access.isPrivilegedAccount(userId)).toBe(isPrivileged(found.roles, found.permissions));
      }
    });

    it('counts privileged accounts without a mobile, and only those', async () => {
      const before = await access.countPrivilegedWithoutMobile();
      await userWith(['settings.edit']);
      const admin = await insertUser(fixture.db);
      await assignRoles(fixture.db, admin, [await roleId(fixture.db, 'admin')]);
      await userWith(['users.view']);
      const withMobile = await insertUser(fixture.db, { mobile: `+4479${String(Date.now()).slice(-8)}` });
      await assignRoles(fixture.db, withMobile, [(await insertRole(fixture.db, ['roles.edit'])).id]);
      expect(await access.countPrivilegedWithoutMobile()).toBe(before + 2);
    });
  });

  describe("the policy's decisions on the rows", () => {
    const contentsManager = ['contents.view', 'contents.create', 'contents.edit', 'contents.delete'];

    it('an actor may act on a user whose access is within its own, and not on one above it', async () => {
      const actorId = await userWith(['users.view', 'users.edit'], contentsManager);
      const peerId = await userWith(['contents.view', 'contents.edit'], ['users.view']);
      const aboveId = await userWith(['contents.view', 'settings.edit', 'audit.view']);
      const actor = {
        id: actorId,
        kind: 'person' as const,
        permissions: (await access.findEffectiveAccess(actorId))!.permissions,
      };

      const peer = (await access.findEffectiveAccess(peerId))!.permissions;
      expect(missingPermissions(actor.permissions, peer)).toEqual([]);
      expect(() => assertMayActOn(actor, { type: 'user', id: peerId }, peer, 'user.update')).not.toThrow();

      const above = (await access.findEffectiveAccess(aboveId))!.permissions;
      expect(missingPermissions(actor.permissions, above)).toEqual(['audit.view', 'settings.edit']);
      expect(() => assertMayActOn(actor, { type: 'user', id: aboveId }, above, 'user.update')).toThrow(
        expect.objectContaining({
          code: 'FORBIDDEN',
          message: 'You cannot change a user holding audit.view, a permission you do not hold.',
          facts: {
            actorId,
            actorKind: 'person',
            target: { type: 'user', id: aboveId },
            action: 'user.update',
            rule: 'target-subset',
            missing: ['audit.view', 'settings.edit'],
          },
        }),
      );
    });

    it('nobody short of every permission may act on a holder of the admin role', async () => {
      const admin = await insertUser(fixture.db);
      await assignRoles(fixture.db, admin, [await roleId(fixture.db, 'admin')]);
      const adminAccess = (await access.findEffectiveAccess(admin))!.permissions;

      const allButOne = await userWith(EVERY_PERMISSION.filter((name) => name !== 'audit.view'));
      expect(missingPermissions((await access.findEffectiveAccess(allButOne))!.permissions, adminAccess)).toEqual([
        'audit.view',
      ]);
      const everything = await userWith(EVERY_PERMISSION);
      expect(missingPermissions((await access.findEffectiveAccess(everything))!.permissions, adminAccess)).toEqual([]);
    });

    it("an actor may grant a role's permissions only when it holds each of them", async () => {
      const actorId = await userWith(['roles.edit', 'roles.view', 'contents.view']);
      const actor = {
        id: actorId,
        kind: 'person' as const,
        permissions: (await access.findEffectiveAccess(actorId))!.permissions,
      };
      const grantable = await insertRole(fixture.db, ['contents.view', 'roles.view']);
      const beyond = await insertRole(fixture.db, ['contents.view', 'users.delete', 'contents.delete']);
      const rolePermissions = async (id: string): Promise<string[]> =>
        (
          await fixture.db.query(
            `SELECT p.name FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id WHERE rp.role_id = $1`,
            [id],
          )
        ).map((row: { name: string }) => row.name);

      expect(missingPermissions(actor.permissions, await rolePermissions(grantable.id))).toEqual([]);
      const missing = missingPermissions(actor.permissions, await rolePermissions(beyond.id));
      expect(missing).toEqual(['contents.delete', 'users.delete']);
      expect(() =>
        assertMayGrant(actor, { type: 'user', id: randomUUID() }, ['contents.delete', 'users.delete'], 'user.roles'),
      ).toThrow(
        expect.objectContaining({
          code: 'FORBIDDEN',
          message: 'You cannot grant contents.delete, a permission you do not hold.',
        }),
      );
    });
  });

  describe('the principal of a session', () => {
    it('is read with its roles and permissions while the session is live, and not after', async () => {
      const userId = await userWith(['contents.view', 'users.view']);
      const sessionId = randomUUID();
      await fixture.db.query(
        `INSERT INTO sessions (id, user_id, refresh_token_hash, expires_at) VALUES ($1, $2, $3, now() + interval '1 hour')`,
        [sessionId, userId, 'f'.repeat(64)],
      );
      const principal = await access.findPrincipalOfActiveSession({ userId, sessionId });
      expect(principal?.id).toBe(userId);
      expect([...principal!.permissions].sort()).toEqual(['contents.view', 'users.view']);
      expect(principal?.roles).toHaveLength(1);

      // Someone else's user id with this session's id finds nobody.
      expect(await access.findPrincipalOfActiveSession({ userId: await insertUser(fixture.db), sessionId })).toBeNull();
      await fixture.db.query(`UPDATE sessions SET revoked_at = now() WHERE id = $1`, [sessionId]);
      expect(await access.findPrincipalOfActiveSession({ userId, sessionId })).toBeNull();
    });
  });
});
