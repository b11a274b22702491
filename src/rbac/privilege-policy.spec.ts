import { isPrivileged, missingPermissions, PRIVILEGED_PERMISSIONS, removedFromAdminRole } from './privilege-policy.js';
import {
  assertAdminRoleKeepsEveryPermission,
  assertMayActOn,
  assertMayAssignAdminRole,
  assertMayGrant,
  PrivilegeRefusal,
} from './privilege-refusal.js';

const EVERY = [
  'users.view',
  'users.create',
  'users.edit',
  'users.delete',
  'roles.view',
  'roles.create',
  'roles.edit',
  'roles.delete',
  'contents.view',
  'contents.create',
  'contents.edit',
  'contents.delete',
  'settings.view',
  'settings.edit',
  'audit.view',
];

describe('isPrivileged', () => {
  // The contract's seven, the client registry's changes (decision 055): editing a first-party
  // client's redirect URIs would hand its sign-ins' codes to whoever edits them; and the changes of
  // any organization (decision 065): whoever holds them can make themselves owner of any customer.
  it("lists exactly the contract's privileged permissions, the client registry's and the organizations' changes", () => {
    expect([...PRIVILEGED_PERMISSIONS].sort()).toEqual([
      'clients.create',
      'clients.delete',
      'clients.edit',
      'organizations.delete',
      'organizations.edit',
      'roles.create',
      'roles.delete',
      'roles.edit',
      'settings.edit',
      'users.create',
      'users.delete',
      'users.edit',
    ]);
  });

  it.each([
    [['admin'], [], true],
    [['user'], [], false],
    [['Admin'], [], false],
    [[], ['users.create'], true],
    [[], ['users.edit'], true],
    [[], ['users.delete'], true],
    [[], ['roles.create'], true],
    [[], ['roles.edit'], true],
    [[], ['roles.delete'], true],
    [[], ['settings.edit'], true],
    [
      [],
      [
        'users.view',
        'roles.view',
        'settings.view',
        'audit.view',
        'contents.view',
        'contents.create',
        'contents.edit',
        'contents.delete',
      ],
      false,
    ],
    [['operators'], EVERY, true],
    [[], [], false],
  ])('roles %j with permissions %j: %s', (roles, permissions, expected) => {
    expect(isPrivileged(roles, permissions)).toBe(expected);
  });
});

type Action = 'act-on' | 'grant' | 'update-admin-role' | 'update-other-role';

/** One decision: may an actor holding `actor` do `action` to something holding `target`? */
function decide(actor: string[], target: string[], action: Action): 'allowed' | 'refused' {
  const who = { id: 'actor', kind: 'person' as const, permissions: actor };
  try {
    if (action === 'act-on') assertMayActOn(who, { type: 'user', id: 't' }, target, 'user.update');
    if (action === 'grant') assertMayGrant(who, { type: 'role', id: 't' }, target, 'role.create');
    // `target` is the role's next set; the admin role holds everything now.
    if (action === 'update-admin-role')
      assertAdminRoleKeepsEveryPermission(who, { id: 'r', name: 'admin' }, EVERY, target);
    if (action === 'update-other-role')
      assertAdminRoleKeepsEveryPermission(who, { id: 'r', name: 'Admin' }, EVERY, target);
    return 'allowed';
  } catch (error) {
    if (error instanceof PrivilegeRefusal) return 'refused';
    throw error;
  }
}

describe('the privilege policy', () => {
  it.each<[string[], string[], Action, 'allowed' | 'refused']>([
    // target ⊆ own
    [EVERY, EVERY, 'act-on', 'allowed'],
    [['users.edit'], EVERY, 'act-on', 'refused'],
    [['users.edit'], [], 'act-on', 'allowed'],
    [['users.edit'], ['users.edit'], 'act-on', 'allowed'],
    [['users.edit'], ['users.edit', 'settings.edit'], 'act-on', 'refused'],
    [['users.delete'], ['contents.view'], 'act-on', 'refused'],
    [['users.edit', 'contents.view'], ['contents.view'], 'act-on', 'allowed'],
    [[], [], 'act-on', 'allowed'],
    // grant ⊆ own
    [['roles.create', 'users.edit'], EVERY, 'grant', 'refused'],
    [['roles.create', 'users.edit'], ['users.edit'], 'grant', 'allowed'],
    [['roles.create'], [], 'grant', 'allowed'],
    [['roles.edit'], ['roles.edit', 'roles.delete'], 'grant', 'refused'],
    [EVERY, EVERY, 'grant', 'allowed'],
    // the admin role keeps every permission, whoever asks
    [EVERY, [], 'update-admin-role', 'refused'],
    [EVERY, EVERY.slice(1), 'update-admin-role', 'refused'],
    [EVERY, EVERY, 'update-admin-role', 'allowed'],
    [EVERY, [...EVERY, 'reports.view'], 'update-admin-role', 'allowed'],
    // only the specification's `admin` is special, not a look-alike name
    [EVERY, [], 'update-other-role', 'allowed'],
  ])('actor %j, target %j, %s: %s', (actor, target, action, expected) => {
    expect(decide(actor, target, action)).toBe(expected);
  });

  it('names what is missing, sorted, once each', () => {
    expect(missingPermissions(['users.edit'], ['users.edit', 'settings.edit', 'audit.view', 'audit.view'])).toEqual([
      'audit.view',
      'settings.edit',
    ]);
    expect(missingPermissions(new Set(['a.b']), ['a.b'])).toEqual([]);
    expect(removedFromAdminRole('admin', ['a.b', 'c.d'], ['c.d'])).toEqual(['a.b']);
    expect(removedFromAdminRole('user', ['a.b', 'c.d'], [])).toEqual([]);
  });

  it('refuses with 403 FORBIDDEN naming the first missing permission, and lists all in the details', () => {
    try {
      assertMayActOn(
        { id: 'a', kind: 'person' as const, permissions: ['users.edit'] },
        { type: 'user', id: 'u' },
        ['users.edit', 'settings.edit', 'audit.view'],
        'user.update',
      );
      throw new Error('not refused');
    } catch (error) {
      const refusal = error as PrivilegeRefusal;
      expect(refusal).toBeInstanceOf(PrivilegeRefusal);
      expect(refusal.code).toBe('FORBIDDEN');
      expect(refusal.getStatus()).toBe(403);
      expect(refusal.message).toBe('You cannot change a user holding audit.view, a permission you do not hold.');
      expect(refusal.details).toEqual([{ permission: 'audit.view' }, { permission: 'settings.edit' }]);
      expect(refusal.facts).toEqual({
        actorId: 'a',
        actorKind: 'person',
        target: { type: 'user', id: 'u' },
        action: 'user.update',
        rule: 'target-subset',
        missing: ['audit.view', 'settings.edit'],
      });
    }
  });

  it("keeps the specification's message for the admin role, and lets roles.edit through", () => {
    expect(() =>
      assertMayAssignAdminRole(
        { id: 'a', kind: 'person' as const, permissions: ['users.edit'] },
        { type: 'user', id: 'u' },
        'user.roles',
      ),
    ).toThrow('You have no permission to assign the admin role.');
    expect(() =>
      assertMayAssignAdminRole(
        { id: 'a', kind: 'person' as const, permissions: ['users.edit', 'roles.edit'] },
        { type: 'user', id: 'u' },
        'user.roles',
      ),
    ).not.toThrow();
  });

  it('answers an update emptying the admin role with SYSTEM_PROTECTED', () => {
    expect(() =>
      assertAdminRoleKeepsEveryPermission(
        { id: 'a', kind: 'person', permissions: EVERY },
        { id: 'r', name: 'admin' },
        EVERY,
        [],
      ),
    ).toThrow(expect.objectContaining({ code: 'SYSTEM_PROTECTED' }));
  });
});
