import {
  adminHoldsEverything,
  anEnabledAdmin,
  apiAgrees,
  noActionAbove,
  noEscalation,
  systemRowsKept,
  type Snapshot,
} from './invariants.js';

/** A small world: three permissions, admin holding all, an `editors` role, three users. */
function world(): Snapshot {
  return {
    permissions: [
      { id: 'p-users-edit', name: 'users.edit', isSystem: true },
      { id: 'p-roles-edit', name: 'roles.edit', isSystem: true },
      { id: 'p-audit-view', name: 'audit.view', isSystem: true },
    ],
    roles: [
      { id: 'r-admin', name: 'admin', isSystem: true, permissionIds: ['p-users-edit', 'p-roles-edit', 'p-audit-view'] },
      { id: 'r-user', name: 'user', isSystem: true, permissionIds: [] },
      { id: 'r-editors', name: 'editors', isSystem: false, permissionIds: ['p-users-edit'] },
    ],
    users: [
      { id: 'root', enabled: true, roleIds: ['r-admin'] },
      { id: 'ed', enabled: true, roleIds: ['r-editors'] },
      { id: 'plain', enabled: true, roleIds: ['r-user'] },
    ],
  };
}

const clone = (snapshot: Snapshot): Snapshot => JSON.parse(JSON.stringify(snapshot)) as Snapshot;
const user = (snapshot: Snapshot, id: string) => snapshot.users.find((row) => row.id === id)!;
const role = (snapshot: Snapshot, id: string) => snapshot.roles.find((row) => row.id === id)!;

describe('privilege invariants', () => {
  describe('(1) no escalation', () => {
    it('holds when the actor gives what it holds', () => {
      const before = world();
      const after = clone(before);
      user(after, 'plain').roleIds.push('r-editors');
      expect(noEscalation(before, after, ['ed'])).toEqual([]);
    });

    it('is broken when an account newly holds what the actor lacked', () => {
      const before = world();
      const after = clone(before);
      role(after, 'r-editors').permissionIds.push('p-roles-edit');
      expect(noEscalation(before, after, ['ed'])).toEqual([
        { invariant: 'no escalation', detail: 'user ed newly holds roles.edit, which the actor did not hold' },
      ]);
    });

    it('lets a created permission go to admin alone, and no further', () => {
      const before = world();
      const after = clone(before);
      after.permissions.push({ id: 'p-new', name: 'reports.view', isSystem: false });
      role(after, 'r-admin').permissionIds.push('p-new');
      expect(noEscalation(before, after, ['ed'])).toEqual([]);
      role(after, 'r-editors').permissionIds.push('p-new');
      expect(noEscalation(before, after, ['root'])[0].detail).toBe(
        'the new permission reports.view is held by role(s) editors, not by admin alone',
      );
    });

    it('counts a new account as holding nothing before', () => {
      const before = world();
      const after = clone(before);
      after.users.push({ id: 'made', enabled: true, roleIds: ['r-editors'] });
      expect(noEscalation(before, after, ['plain'])[0].detail).toBe(
        'user made newly holds users.edit, which the actor did not hold',
      );
    });
  });

  describe('(2) nobody acts above themselves', () => {
    const facts = { actorId: 'ed', userTargets: [] as string[], roleTargets: [] as string[], permissionTargets: [] };

    it('holds for a target whose permissions the actor holds', () => {
      expect(noActionAbove(world(), { ...facts, userTargets: ['plain', 'ed'] })).toEqual([]);
    });

    it('is broken by acting on a more privileged account, role or permission', () => {
      const found = noActionAbove(world(), {
        ...facts,
        userTargets: ['root'],
        roleTargets: ['r-admin'],
        permissionTargets: ['p-audit-view'],
      });
      expect(found.map((violation) => violation.detail)).toEqual([
        'the actor changed user root holding audit.view, roles.edit, which the actor did not hold',
        'the actor changed role r-admin holding audit.view, roles.edit, which the actor did not hold',
        'the actor changed permission p-audit-view holding audit.view, which the actor did not hold',
      ]);
    });

    it('counts what the actor held when its request arrived', () => {
      expect(noActionAbove(world(), { ...facts, userTargets: ['root'] }, ['p-roles-edit', 'p-audit-view'])).toEqual([]);
    });
  });

  it('(3) is broken when the admin role lacks a permission', () => {
    const snapshot = world();
    expect(adminHoldsEverything(snapshot)).toEqual([]);
    role(snapshot, 'r-admin').permissionIds = ['p-users-edit'];
    expect(adminHoldsEverything(snapshot)[0].detail).toBe('the admin role lacks audit.view, roles.edit');
  });

  it('(4) counts enabled holders of admin only', () => {
    const snapshot = world();
    expect(anEnabledAdmin(snapshot)).toEqual([]);
    user(snapshot, 'ed').roleIds.push('r-admin');
    user(snapshot, 'ed').enabled = false;
    user(snapshot, 'root').roleIds = [];
    expect(anEnabledAdmin(snapshot)).toHaveLength(1);
  });

  it('(5) is broken by a renamed or missing system row', () => {
    const start = world();
    const snapshot = clone(start);
    role(snapshot, 'r-user').name = 'members';
    snapshot.permissions = snapshot.permissions.filter((row) => row.id !== 'p-audit-view');
    expect(systemRowsKept(start, snapshot).map((violation) => violation.detail)).toEqual([
      'the system role user is now named members',
      'the system permission audit.view is gone',
    ]);
  });

  it('(6) compares what the API says with the union over roles', () => {
    const snapshot = world();
    expect(apiAgrees(snapshot, 'ed', '/auth/me', ['users.edit'])).toEqual([]);
    expect(apiAgrees(snapshot, 'ed', '/auth/me', ['users.edit', 'roles.edit'])[0].detail).toBe(
      '/auth/me of user ed says [roles.edit, users.edit], the database [users.edit]',
    );
  });
});
