/**
 * The privilege invariants, as pure functions over snapshots of the database: users, roles,
 * permissions and the links between them. They know nothing of HTTP or of the service's code, so
 * they judge the service from outside (docs/architecture.md, "Privilege invariants").
 *
 * A permission is its row (its id): renaming one keeps who holds it.
 */

export interface PermissionRow {
  id: string;
  name: string;
  isSystem: boolean;
}

export interface RoleRow {
  id: string;
  name: string;
  isSystem: boolean;
  permissionIds: string[];
}

export interface UserRow {
  id: string;
  enabled: boolean;
  roleIds: string[];
}

export interface Snapshot {
  permissions: PermissionRow[];
  roles: RoleRow[];
  users: UserRow[];
}

/** What an accepted action was, as far as the invariants care. */
export interface ActionFacts {
  actorId: string;
  /** Accounts the action changed, disabled, enabled or deleted. */
  userTargets: string[];
  /** Roles whose permissions or name the action changed, or that it deleted. */
  roleTargets: string[];
  /** Permissions the action renamed or deleted. */
  permissionTargets: string[];
}

export interface Violation {
  invariant: string;
  detail: string;
}

export const ADMIN = 'admin';

/** The permission ids a user holds: the union over their roles. Empty for an unknown user. */
export function effectivePermissionIds(snapshot: Snapshot, userId: string): Set<string> {
  const user = snapshot.users.find((row) => row.id === userId);
  const held = new Set<string>();
  if (!user) return held;
  for (const roleId of user.roleIds) {
    const role = snapshot.roles.find((row) => row.id === roleId);
    for (const permissionId of role?.permissionIds ?? []) held.add(permissionId);
  }
  return held;
}

/** The same, as permission names, sorted. */
export function effectivePermissionNames(snapshot: Snapshot, userId: string): string[] {
  return namesOf(snapshot, effectivePermissionIds(snapshot, userId));
}

/**
 * (1) No escalation: after an accepted action, every permission any account holds that it did not
 * hold before was held by an actor of the action (before it); a permission the action created is
 * held by the `admin` role alone. Several actors: the actions of a pair sent at once.
 */
export function noEscalation(before: Snapshot, after: Snapshot, actorIds: string[]): Violation[] {
  const violations: Violation[] = [];
  const existed = new Set(before.permissions.map((row) => row.id));
  const actorsHeld = new Set(actorIds.flatMap((id) => [...effectivePermissionIds(before, id)]));
  for (const permission of after.permissions) {
    if (existed.has(permission.id)) continue;
    const holders = after.roles.filter((role) => role.permissionIds.includes(permission.id)).map((role) => role.name);
    if (holders.some((name) => name !== ADMIN)) {
      violations.push({
        invariant: 'no escalation',
        detail: `the new permission ${permission.name} is held by role(s) ${holders.filter((n) => n !== ADMIN).join(', ')}, not by admin alone`,
      });
    }
  }
  for (const user of after.users) {
    const had = effectivePermissionIds(before, user.id);
    for (const permissionId of effectivePermissionIds(after, user.id)) {
      if (had.has(permissionId) || !existed.has(permissionId) || actorsHeld.has(permissionId)) continue;
      violations.push({
        invariant: 'no escalation',
        detail: `user ${user.id} newly holds ${nameOf(after, permissionId)}, which the actor did not hold`,
      });
    }
  }
  return violations;
}

/**
 * (2) Nobody acts on anything more privileged than themselves: every account, role and permission
 * an accepted action changed held only permissions the actor held, before the action. `alsoHeld`:
 * for one of two requests sent at once, what the actor held when the request arrived.
 */
export function noActionAbove(before: Snapshot, facts: ActionFacts, alsoHeld: Iterable<string> = []): Violation[] {
  const own = new Set([...effectivePermissionIds(before, facts.actorId), ...alsoHeld]);
  const violations: Violation[] = [];
  const above = (kind: string, id: string, held: Iterable<string>) => {
    const missing = [...held].filter((permissionId) => !own.has(permissionId));
    if (missing.length > 0) {
      violations.push({
        invariant: 'nobody acts above themselves',
        detail: `the actor changed ${kind} ${id} holding ${namesOf(before, missing).join(', ')}, which the actor did not hold`,
      });
    }
  };
  for (const userId of facts.userTargets) above('user', userId, effectivePermissionIds(before, userId));
  for (const roleId of facts.roleTargets)
    above('role', roleId, before.roles.find((role) => role.id === roleId)?.permissionIds ?? []);
  for (const permissionId of facts.permissionTargets) above('permission', permissionId, [permissionId]);
  return violations;
}

/** (3) The `admin` role holds every permission. */
export function adminHoldsEverything(snapshot: Snapshot): Violation[] {
  const admin = snapshot.roles.find((role) => role.name === ADMIN && role.isSystem);
  if (!admin) return [{ invariant: 'admin holds every permission', detail: 'there is no admin role' }];
  const held = new Set(admin.permissionIds);
  const missing = snapshot.permissions.filter((permission) => !held.has(permission.id)).map((row) => row.name);
  return missing.length === 0
    ? []
    : [{ invariant: 'admin holds every permission', detail: `the admin role lacks ${missing.sort().join(', ')}` }];
}

/** (4) At least one enabled account holds `admin`. */
export function anEnabledAdmin(snapshot: Snapshot): Violation[] {
  const admin = snapshot.roles.find((role) => role.name === ADMIN && role.isSystem);
  const found = admin && snapshot.users.some((user) => user.enabled && user.roleIds.includes(admin.id));
  return found ? [] : [{ invariant: 'an enabled administrator remains', detail: 'no enabled account holds admin' }];
}

/** (5) System rows keep their names: the same system roles and permissions, by id and name, as at the start. */
export function systemRowsKept(start: Snapshot, snapshot: Snapshot): Violation[] {
  const violations: Violation[] = [];
  const compare = (kind: string, was: { id: string; name: string }[], now: { id: string; name: string }[]) => {
    for (const row of was) {
      const current = now.find((other) => other.id === row.id);
      if (!current)
        violations.push({ invariant: 'system rows kept', detail: `the system ${kind} ${row.name} is gone` });
      else if (current.name !== row.name)
        violations.push({
          invariant: 'system rows kept',
          detail: `the system ${kind} ${row.name} is now named ${current.name}`,
        });
    }
  };
  compare(
    'role',
    start.roles.filter((row) => row.isSystem),
    snapshot.roles,
  );
  compare(
    'permission',
    start.permissions.filter((row) => row.isSystem),
    snapshot.permissions,
  );
  return violations;
}

/**
 * (6) What the API says a user holds (`/auth/me`, introspection) is the union over their roles in
 * the database.
 */
export function apiAgrees(snapshot: Snapshot, userId: string, where: string, permissionNames: string[]): Violation[] {
  const expected = effectivePermissionNames(snapshot, userId);
  const said = [...new Set(permissionNames)].sort();
  if (expected.join(',') === said.join(',')) return [];
  return [
    {
      invariant: 'the API agrees with the database',
      detail: `${where} of user ${userId} says [${said.join(', ')}], the database [${expected.join(', ')}]`,
    },
  ];
}

/** The invariants of a state, whatever led to it: (3), (4), (5). */
export function stateInvariants(start: Snapshot, snapshot: Snapshot): Violation[] {
  return [...adminHoldsEverything(snapshot), ...anEnabledAdmin(snapshot), ...systemRowsKept(start, snapshot)];
}

/** The invariants of one accepted action: (1), (2), then those of the state it left. */
export function stepInvariants(start: Snapshot, before: Snapshot, after: Snapshot, facts: ActionFacts): Violation[] {
  return [
    ...noEscalation(before, after, [facts.actorId]),
    ...noActionAbove(before, facts),
    ...stateInvariants(start, after),
  ];
}

function nameOf(snapshot: Snapshot, permissionId: string): string {
  return snapshot.permissions.find((row) => row.id === permissionId)?.name ?? permissionId;
}

function namesOf(snapshot: Snapshot, ids: Iterable<string>): string[] {
  return [...ids].map((id) => nameOf(snapshot, id)).sort();
}
