/**
 * The model of the privilege rules: what the service should answer to each admin write, and what
 * the database should hold after it, written from the contract ("Privilege boundaries", the
 * endpoint table) without reading the service's code. Pure: no HTTP, no database.
 */
import { ADMIN, effectivePermissionIds, type ActionFacts, type PermissionRow, type RoleRow } from './invariants.js';
import {
  ADMINISTRATOR_PERMISSION,
  OWNER,
  type ModelOrganization,
  type OrganizationFacts,
  type OrganizationPermissionRow,
  type OrganizationRoleRow,
} from './organization-model.js';

export interface ModelUser {
  id: string;
  label: string;
  email: string;
  enabled: boolean;
  roleIds: string[];
  /** Whether the test holds a live access token of this user. */
  session: boolean;
  /** The email is verified (accounts of the world; an invitation is accepted only by such). */
  verified?: boolean;
}

/** An invitation sent and not yet used; `token` is read from the mail. */
export interface ModelInvitation {
  id: string;
  organizationId: string;
  userId: string;
  email: string;
  roleIds: string[];
  token?: string;
}

export interface ModelState {
  permissions: PermissionRow[];
  roles: RoleRow[];
  users: ModelUser[];
  organizations: ModelOrganization[];
  /** The organization-role template (owner, member, custom ones) and its permissions. */
  organizationRoles: OrganizationRoleRow[];
  organizationPermissions: OrganizationPermissionRow[];
  invitations: ModelInvitation[];
  /** Organization tokens the test holds, as `${userId} ${organizationId}`. */
  organizationTokens: string[];
}

export type Action =
  | { kind: 'createRole'; actor: string; name: string; permissionIds: string[] }
  | { kind: 'updateRole'; actor: string; roleId: string; name?: string; permissionIds?: string[] }
  | { kind: 'deleteRole'; actor: string; roleId: string }
  | { kind: 'createPermission'; actor: string; name: string }
  | { kind: 'updatePermission'; actor: string; permissionId: string; name?: string; displayName?: string }
  | { kind: 'deletePermission'; actor: string; permissionId: string }
  | { kind: 'addRoles' | 'replaceRoles'; actor: string; userId: string; roleIds: string[] }
  | { kind: 'removeRole'; actor: string; userId: string; roleId: string }
  /** With `password`, the account's sessions end (an identity change). */
  | { kind: 'editUser'; actor: string; userId: string; name: string; password?: string }
  | { kind: 'disableUser' | 'enableUser' | 'deleteUser'; actor: string; userId: string }
  | { kind: 'createUser'; actor: string; email: string }
  | { kind: 'settings'; actor: string; body: { mobile_otp?: boolean; email_code?: boolean } }
  | { kind: 'signIn'; userId: string }
  | { kind: 'createOrganization'; actor: string; slug: string }
  | { kind: 'viewOrganization' | 'deleteOrganization' | 'organizationToken'; actor: string; organizationId: string }
  | {
      kind: 'addMember' | 'inviteMember' | 'setMemberRoles';
      actor: string;
      organizationId: string;
      userId: string;
      roleIds: string[];
    }
  /** Removing a member, or leaving when `userId` is the actor. */
  | { kind: 'removeMember'; actor: string; organizationId: string; userId: string }
  | { kind: 'acceptInvitation'; actor: string; invitationId: string }
  | { kind: 'updateOrganizationRole'; actor: string; roleId: string; permissionIds: string[] };

/** The organization writes, apart from the instance's (pairs sent at once stay among the instance's). */
export const ORGANIZATION_KINDS = [
  'createOrganization',
  'viewOrganization',
  'deleteOrganization',
  'organizationToken',
  'addMember',
  'inviteMember',
  'acceptInvitation',
  'setMemberRoles',
  'removeMember',
  'updateOrganizationRole',
] as const;

export interface HttpCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** The acting user's id, or null for a sign-in (no token). */
  actor: string | null;
  body?: Record<string, unknown>;
}

export interface Expected {
  status: number;
  code?: string;
  /** Checked when the contract fixes it. */
  message?: string;
}

export interface Prediction {
  expected: Expected;
  /** For an accepted action: what it changed (the invariants' facts) and how the model follows. */
  facts?: ActionFacts;
  /** For an accepted organization write: what the organization invariants judge. */
  organizationFacts?: OrganizationFacts;
  apply?: (state: ModelState, data: Record<string, unknown>) => void;
}

export const NEW_USER_PASSWORD = 'Plum-Orbit-Lantern-42';

/** The HTTP call that carries an action. */
export function httpCall(action: Action, state: ModelState): HttpCall {
  switch (action.kind) {
    case 'createRole':
      return {
        method: 'POST',
        path: '/api/admin/roles',
        actor: action.actor,
        body: { name: action.name, permission_ids: action.permissionIds },
      };
    case 'updateRole':
      return {
        method: 'PUT',
        path: `/api/admin/roles/${action.roleId}`,
        actor: action.actor,
        body: {
          ...(action.name !== undefined && { name: action.name }),
          ...(action.permissionIds !== undefined && { permission_ids: action.permissionIds }),
        },
      };
    case 'deleteRole':
      return { method: 'DELETE', path: `/api/admin/roles/${action.roleId}`, actor: action.actor };
    case 'createPermission':
      return { method: 'POST', path: '/api/admin/permissions', actor: action.actor, body: { name: action.name } };
    case 'updatePermission':
      return {
        method: 'PUT',
        path: `/api/admin/permissions/${action.permissionId}`,
        actor: action.actor,
        body: action.name !== undefined ? { name: action.name } : { display_name: action.displayName },
      };
    case 'deletePermission':
      return { method: 'DELETE', path: `/api/admin/permissions/${action.permissionId}`, actor: action.actor };
    case 'addRoles':
    case 'replaceRoles':
      return {
        method: action.kind === 'addRoles' ? 'POST' : 'PUT',
        path: `/api/admin/users/${action.userId}/roles`,
        actor: action.actor,
        body: { role_ids: action.roleIds },
      };
    case 'removeRole':
      return {
        method: 'DELETE',
        path: `/api/admin/users/${action.userId}/roles/${action.roleId}`,
        actor: action.actor,
      };
    case 'editUser':
      return {
        method: 'PUT',
        path: `/api/admin/users/${action.userId}`,
        actor: action.actor,
        body: { name: action.name, ...(action.password !== undefined && { password: action.password }) },
      };
    case 'disableUser':
      return { method: 'POST', path: `/api/admin/users/${action.userId}/disable`, actor: action.actor, body: {} };
    case 'enableUser':
      return { method: 'POST', path: `/api/admin/users/${action.userId}/enable`, actor: action.actor, body: {} };
    case 'deleteUser':
      return { method: 'DELETE', path: `/api/admin/users/${action.userId}`, actor: action.actor };
    case 'createUser':
      return {
        method: 'POST',
        path: '/api/admin/users',
        actor: action.actor,
        body: { name: 'Made By Admin', email: action.email, password: NEW_USER_PASSWORD },
      };
    case 'settings':
      return { method: 'PUT', path: '/api/admin/settings', actor: action.actor, body: action.body };
    case 'signIn': {
      const user = state.users.find((row) => row.id === action.userId)!;
      return {
        method: 'POST',
        path: '/api/auth/login',
        actor: null,
        body: { email: user.email, password: NEW_USER_PASSWORD },
      };
    }
    case 'createOrganization':
      return {
        method: 'POST',
        path: '/api/organizations',
        actor: action.actor,
        body: { slug: action.slug, name: 'Model Organization' },
      };
    case 'viewOrganization':
      return { method: 'GET', path: `/api/organizations/${action.organizationId}`, actor: action.actor };
    case 'deleteOrganization':
      return { method: 'DELETE', path: `/api/organizations/${action.organizationId}`, actor: action.actor };
    case 'organizationToken':
      return {
        method: 'POST',
        path: '/api/auth/organization-token',
        actor: action.actor,
        body: { organization_id: action.organizationId },
      };
    case 'addMember':
      return {
        method: 'POST',
        path: `/api/organizations/${action.organizationId}/members`,
        actor: action.actor,
        body: { user_id: action.userId, role_ids: action.roleIds },
      };
    case 'inviteMember': {
      const user = state.users.find((row) => row.id === action.userId)!;
      return {
        method: 'POST',
        path: `/api/organizations/${action.organizationId}/invitations`,
        actor: action.actor,
        body: { email: user.email, role_ids: action.roleIds },
      };
    }
    case 'acceptInvitation': {
      const invitation = state.invitations.find((row) => row.id === action.invitationId)!;
      return {
        method: 'POST',
        path: '/api/account/invitations/accept',
        actor: action.actor,
        body: { token: invitation.token },
      };
    }
    case 'setMemberRoles':
      return {
        method: 'PUT',
        path: `/api/organizations/${action.organizationId}/members/${action.userId}/roles`,
        actor: action.actor,
        body: { role_ids: action.roleIds },
      };
    case 'removeMember':
      return {
        method: 'DELETE',
        path: `/api/organizations/${action.organizationId}/members/${action.userId}`,
        actor: action.actor,
      };
    case 'updateOrganizationRole':
      return {
        method: 'PUT',
        path: `/api/admin/organization-roles/${action.roleId}`,
        actor: action.actor,
        body: { permission_ids: action.permissionIds },
      };
  }
}

const refused = (status: number, code: string, message?: string): Prediction => ({
  expected: { status, code, ...(message !== undefined && { message }) },
});
const forbidden = (message: string) => refused(403, 'FORBIDDEN', message);
const missingPermission = (permission: string) => forbidden(`Missing permission: ${permission}.`);
const NO_EDIT_USERS = 'You have no permission to edit users.';
const NO_ASSIGN_ADMIN = 'You have no permission to assign the admin role.';

/** What the service should answer, and what the action changes when accepted. */
export function predict(state: ModelState, action: Action, arrival: ModelState = state): Prediction {
  if (action.kind === 'signIn') return predictSignIn(state, action.userId);
  // Who the caller is and what they hold, as when the request arrived (for one of two requests
  // sent at once, that may be before the other one changed them).
  const actor = arrival.users.find((user) => user.id === action.actor);
  if (!actor?.session) return refused(401, 'UNAUTHENTICATED');
  const own = permissionNamesOf(arrival, actor.id);
  const has = (name: string) => own.has(name);
  const lacking = (names: Iterable<string>) => [...new Set(names)].filter((name) => !own.has(name)).sort();
  const facts = (targets: Partial<ActionFacts> = {}): ActionFacts => ({
    actorId: actor.id,
    userTargets: [],
    roleTargets: [],
    permissionTargets: [],
    ...targets,
  });

  switch (action.kind) {
    case 'createRole': {
      if (!has('roles.create')) return missingPermission('roles.create');
      if (roleNameTaken(state, action.name)) return refused(409, 'CONFLICT');
      if (unknown(state.permissions, action.permissionIds)) return refused(400, 'VALIDATION_FAILED');
      const missing = lacking(namesOfPermissions(state, action.permissionIds));
      if (missing.length) return forbidden(`You cannot grant ${missing[0]}, a permission you do not hold.`);
      return {
        expected: { status: 201 },
        facts: facts(),
        apply: (next, data) => {
          next.roles.push({
            id: String(data.id),
            name: action.name,
            isSystem: false,
            permissionIds: [...action.permissionIds],
          });
        },
      };
    }
    case 'updateRole': {
      if (!has('roles.edit')) return missingPermission('roles.edit');
      const role = state.roles.find((row) => row.id === action.roleId);
      if (!role) return refused(404, 'NOT_FOUND');
      if (action.permissionIds && unknown(state.permissions, action.permissionIds))
        return refused(400, 'VALIDATION_FAILED');
      const current = namesOfPermissions(state, role.permissionIds);
      const above = lacking(current);
      if (above.length) return forbidden(`You cannot change a role holding ${above[0]}, a permission you do not hold.`);
      if (action.name !== undefined && action.name !== role.name && role.isSystem)
        return refused(403, 'SYSTEM_PROTECTED', 'A system role cannot be renamed.');
      if (action.permissionIds) {
        const next = namesOfPermissions(state, action.permissionIds);
        const missing = lacking(next);
        if (missing.length) return forbidden(`You cannot grant ${missing[0]}, a permission you do not hold.`);
        const removed = role.name === ADMIN ? current.filter((name) => !next.includes(name)).sort() : [];
        if (removed.length)
          return refused(
            403,
            'SYSTEM_PROTECTED',
            `The admin role keeps every permission; ${removed[0]} cannot be removed from it.`,
          );
      }
      if (action.name !== undefined && roleNameTaken(state, action.name, role.id)) return refused(409, 'CONFLICT');
      return {
        expected: { status: 200 },
        facts: facts({ roleTargets: [role.id] }),
        apply: (next) => {
          const row = next.roles.find((other) => other.id === role.id)!;
          if (action.name !== undefined) row.name = action.name;
          if (action.permissionIds) row.permissionIds = [...action.permissionIds];
        },
      };
    }
    case 'deleteRole': {
      if (!has('roles.delete')) return missingPermission('roles.delete');
      const role = state.roles.find((row) => row.id === action.roleId);
      if (!role) return refused(404, 'NOT_FOUND');
      const above = lacking(namesOfPermissions(state, role.permissionIds));
      if (above.length) return forbidden(`You cannot change a role holding ${above[0]}, a permission you do not hold.`);
      if (role.isSystem) return refused(403, 'SYSTEM_PROTECTED', 'A system role cannot be deleted.');
      return {
        expected: { status: 200 },
        facts: facts({ roleTargets: [role.id] }),
        apply: (next) => {
          next.roles = next.roles.filter((row) => row.id !== role.id);
          for (const user of next.users) user.roleIds = user.roleIds.filter((id) => id !== role.id);
        },
      };
    }
    case 'createPermission': {
      if (!has('roles.create')) return missingPermission('roles.create');
      if (state.permissions.some((row) => row.name === action.name)) return refused(409, 'CONFLICT');
      return {
        expected: { status: 201 },
        facts: facts(),
        apply: (next, data) => {
          const id = String(data.id);
          next.permissions.push({ id, name: action.name, isSystem: false });
          next.roles.find((row) => row.name === ADMIN && row.isSystem)!.permissionIds.push(id);
        },
      };
    }
    case 'updatePermission': {
      if (!has('roles.edit')) return missingPermission('roles.edit');
      const permission = state.permissions.find((row) => row.id === action.permissionId);
      if (!permission) return refused(404, 'NOT_FOUND');
      if (!has(permission.name))
        return forbidden(`You cannot change the permission ${permission.name}, which you do not hold.`);
      const renames = action.name !== undefined && action.name !== permission.name;
      if (renames && permission.isSystem)
        return refused(403, 'SYSTEM_PROTECTED', 'A system permission cannot be renamed.');
      if (renames && state.permissions.some((row) => row.name === action.name)) return refused(409, 'CONFLICT');
      return {
        expected: { status: 200 },
        facts: facts({ permissionTargets: [permission.id] }),
        apply: (next) => {
          if (action.name !== undefined) next.permissions.find((row) => row.id === permission.id)!.name = action.name;
        },
      };
    }
    case 'deletePermission': {
      if (!has('roles.delete')) return missingPermission('roles.delete');
      const permission = state.permissions.find((row) => row.id === action.permissionId);
      if (!permission) return refused(404, 'NOT_FOUND');
      if (!has(permission.name))
        return forbidden(`You cannot change the permission ${permission.name}, which you do not hold.`);
      if (permission.isSystem) return refused(403, 'SYSTEM_PROTECTED', 'A system permission cannot be deleted.');
      return {
        expected: { status: 200 },
        facts: facts({ permissionTargets: [permission.id] }),
        apply: (next) => {
          next.permissions = next.permissions.filter((row) => row.id !== permission.id);
          for (const role of next.roles) role.permissionIds = role.permissionIds.filter((id) => id !== permission.id);
        },
      };
    }
    case 'addRoles':
    case 'replaceRoles':
    case 'removeRole': {
      if (!has('users.edit')) return forbidden(NO_EDIT_USERS);
      const target = state.users.find((row) => row.id === action.userId);
      if (!target) return refused(404, 'NOT_FOUND');
      if (action.kind === 'removeRole' ? unknown(state.roles, [action.roleId]) : unknown(state.roles, action.roleIds))
        return action.kind === 'removeRole' ? refused(404, 'NOT_FOUND') : refused(400, 'VALIDATION_FAILED');
      const adminRole = state.roles.find((row) => row.name === ADMIN && row.isSystem)!;
      const named = action.kind === 'removeRole' ? [action.roleId] : action.roleIds;
      const next =
        action.kind === 'addRoles'
          ? [...new Set([...target.roleIds, ...action.roleIds])]
          : action.kind === 'replaceRoles'
            ? [...action.roleIds]
            : target.roleIds.filter((id) => !named.includes(id));
      // Giving, keeping through a replacement, or taking away admin needs roles.edit.
      const touchesAdmin =
        named.includes(adminRole.id) || (action.kind === 'replaceRoles' && target.roleIds.includes(adminRole.id));
      if (touchesAdmin && !has('roles.edit')) return forbidden(NO_ASSIGN_ADMIN);
      const above = lacking(permissionNamesOf(state, target.id));
      if (above.length) return forbidden(`You cannot change a user holding ${above[0]}, a permission you do not hold.`);
      const added = next.filter((id) => !target.roleIds.includes(id));
      const missing = lacking(added.flatMap((id) => rolePermissionNames(state, id)));
      if (missing.length) return forbidden(`You cannot grant ${missing[0]}, a permission you do not hold.`);
      const losesAdmin = target.roleIds.includes(adminRole.id) && !next.includes(adminRole.id);
      if (losesAdmin && !otherEnabledAdmin(state, target.id))
        return refused(409, 'CONFLICT', 'The last administrator cannot lose the admin role.');
      return {
        expected: { status: 200 },
        facts: facts({ userTargets: [target.id] }),
        apply: (state) => {
          state.users.find((row) => row.id === target.id)!.roleIds = next;
        },
      };
    }
    case 'editUser': {
      if (!has('users.edit')) return forbidden(NO_EDIT_USERS);
      if (!state.users.some((row) => row.id === action.userId)) return refused(404, 'NOT_FOUND');
      const above = lacking(permissionNamesOf(state, action.userId));
      if (above.length) return forbidden(`You cannot change a user holding ${above[0]}, a permission you do not hold.`);
      return {
        expected: { status: 200 },
        facts: facts({ userTargets: [action.userId] }),
        apply: (next) => {
          // A password set by an administrator ends every session of the account.
          if (action.password !== undefined) next.users.find((row) => row.id === action.userId)!.session = false;
        },
      };
    }
    case 'disableUser':
    case 'enableUser':
    case 'deleteUser': {
      const needed = action.kind === 'deleteUser' ? 'users.delete' : 'users.edit';
      if (!has(needed)) return missingPermission(needed);
      if (!state.users.some((row) => row.id === action.userId)) return refused(404, 'NOT_FOUND');
      const above = lacking(permissionNamesOf(state, action.userId));
      if (above.length) return forbidden(`You cannot change a user holding ${above[0]}, a permission you do not hold.`);
      const target = state.users.find((row) => row.id === action.userId)!;
      const holdsAdmin = target.roleIds.includes(state.roles.find((row) => row.name === ADMIN && row.isSystem)!.id);
      if (action.kind !== 'enableUser' && holdsAdmin && !otherEnabledAdmin(state, target.id))
        return refused(
          409,
          'CONFLICT',
          action.kind === 'deleteUser'
            ? 'The last administrator cannot be deleted.'
            : 'The last enabled administrator cannot be disabled.',
        );
      return {
        expected: { status: 200 },
        facts: facts({ userTargets: [target.id] }),
        apply: (next) => {
          if (action.kind === 'deleteUser') {
            next.users = next.users.filter((row) => row.id !== target.id);
            // The account's memberships go with it.
            for (const organization of next.organizations)
              organization.members = organization.members.filter((member) => member.userId !== target.id);
            next.invitations = next.invitations.filter((row) => row.userId !== target.id);
          } else {
            const row = next.users.find((other) => other.id === target.id)!;
            row.enabled = action.kind === 'enableUser';
            // Disabling ends every session; enabling gives none back.
            if (action.kind === 'disableUser') row.session = false;
          }
        },
      };
    }
    case 'createUser': {
      if (!has('users.create')) return missingPermission('users.create');
      // The new account gets the `user` role: a grant like any other.
      const userRole = state.roles.find((row) => row.name === 'user' && row.isSystem)!;
      const missing = lacking(rolePermissionNames(state, userRole.id));
      if (missing.length) return forbidden(`You cannot grant ${missing[0]}, a permission you do not hold.`);
      return {
        expected: { status: 201 },
        facts: facts(),
        apply: (next, data) => {
          next.users.push({
            id: String(data.id),
            label: `u${next.users.length}-${String(data.id).slice(0, 4)}`,
            email: action.email,
            enabled: true,
            roleIds: [userRole.id],
            session: false,
          });
        },
      };
    }
    case 'settings': {
      if (!has('settings.edit')) return missingPermission('settings.edit');
      return { expected: { status: 200 }, facts: facts(), apply: () => undefined };
    }
    case 'updateOrganizationRole': {
      if (!has('roles.edit')) return missingPermission('roles.edit');
      const role = state.organizationRoles.find((row) => row.id === action.roleId);
      if (!role) return refused(404, 'NOT_FOUND');
      const removed = role.name === OWNER && role.permissionIds.some((id) => !action.permissionIds.includes(id));
      if (removed) return refused(403, 'SYSTEM_PROTECTED');
      return {
        expected: { status: 200 },
        facts: facts(),
        apply: (next) => {
          next.organizationRoles.find((row) => row.id === role.id)!.permissionIds = [...action.permissionIds];
        },
      };
    }
    default:
      return predictOrganization(state, action, actor, own);
  }
}

type OrganizationAction = Extract<Action, { kind: (typeof ORGANIZATION_KINDS)[number] }>;

/**
 * The organization routes, judged in the organization the path names: an instance administrator
 * (the `organizations.*` permission standing for the member's) manages any organization; a
 * non-member hears 404; a member lacking the permission, 403. Inside, the instance's policy: grant
 * ⊆ own, target ⊆ own, nobody changes their own roles, only an owner touches an owner; the last
 * owner stays (409), for administrators too.
 */
function predictOrganization(state: ModelState, action: Action, actor: ModelUser, own: Set<string>): Prediction {
  const organizationAction = action as OrganizationAction;
  if (organizationAction.kind === 'createOrganization') {
    // ORGANIZATIONS_SELF_SERVICE is on (the default): anyone signed in creates one.
    if (state.organizations.some((row) => row.slug === organizationAction.slug)) return refused(409, 'CONFLICT');
    const owner = state.organizationRoles.find((row) => row.name === OWNER && row.isSystem)!;
    return {
      expected: { status: 201 },
      apply: (next, data) => {
        next.organizations.push({
          id: String(data.id),
          label: `org${next.organizations.length}-${String(data.id).slice(0, 4)}`,
          slug: organizationAction.slug,
          members: [{ userId: actor.id, roleIds: [owner.id] }],
        });
      },
    };
  }
  if (organizationAction.kind === 'acceptInvitation') return predictAccept(state, organizationAction, actor);
  if (organizationAction.kind === 'updateOrganizationRole') throw new Error('a template write is judged above');
  const organization = state.organizations.find((row) => row.id === organizationAction.organizationId);
  if (!organization) return refused(404, 'NOT_FOUND');
  const membership = (userId: string) => organization.members.find((member) => member.userId === userId);
  const permissionsOf = (roleIds: string[]) =>
    new Set(
      roleIds.flatMap(
        (id) =>
          state.organizationRoles
            .find((row) => row.id === id)
            ?.permissionIds.map((pid) => state.organizationPermissions.find((p) => p.id === pid)!.name) ?? [],
      ),
    );
  const ownerRole = state.organizationRoles.find((row) => row.name === OWNER && row.isSystem)!;
  const mine = membership(actor.id);
  const minePermissions = permissionsOf(mine?.roleIds ?? []);
  /** The judge of the route: null when the caller passes, else the refusal. */
  const judge = (permission: string | null): { refusal: Prediction } | { asAdministrator: boolean } => {
    if (permission !== null && own.has(ADMINISTRATOR_PERMISSION[permission])) return { asAdministrator: true };
    if (!mine) return { refusal: refused(404, 'NOT_FOUND') };
    if (permission !== null && !minePermissions.has(permission)) return { refusal: refused(403, 'FORBIDDEN') };
    return { asAdministrator: false };
  };
  const orgFacts = (asAdministrator: boolean, memberTargets: string[] = [], leaving = false): OrganizationFacts => ({
    actorId: actor.id,
    organizationId: organization.id,
    asAdministrator,
    memberTargets,
    leaving,
  });
  const unknownRole = (roleIds: string[]) => roleIds.some((id) => !state.organizationRoles.some((r) => r.id === id));
  const beyond = (roleIds: string[]) => [...permissionsOf(roleIds)].some((name) => !minePermissions.has(name));
  const actsAsOwner = (asAdministrator: boolean) => asAdministrator || !!mine?.roleIds.includes(ownerRole.id);
  const anotherOwner = (userId: string) =>
    organization.members.some((member) => member.userId !== userId && member.roleIds.includes(ownerRole.id));

  switch (organizationAction.kind) {
    case 'viewOrganization': {
      const judged = judge('organization.view');
      if ('refusal' in judged) return judged.refusal;
      return { expected: { status: 200 } };
    }
    case 'organizationToken': {
      // A member's token only: an administrator who is no member is refused like anyone else.
      if (!mine) return refused(404, 'NOT_FOUND');
      return {
        expected: { status: 200 },
        apply: (next) => {
          const key = `${actor.id} ${organization.id}`;
          if (!next.organizationTokens.includes(key)) next.organizationTokens.push(key);
        },
      };
    }
    case 'deleteOrganization': {
      const judged = judge('organization.delete');
      if ('refusal' in judged) return judged.refusal;
      return {
        expected: { status: 200 },
        organizationFacts: orgFacts(judged.asAdministrator),
        apply: (next) => {
          next.organizations = next.organizations.filter((row) => row.id !== organization.id);
          next.invitations = next.invitations.filter((row) => row.organizationId !== organization.id);
        },
      };
    }
    case 'addMember': {
      const judged = judge('members.edit');
      if ('refusal' in judged) return judged.refusal;
      if (!judged.asAdministrator) return refused(403, 'FORBIDDEN');
      if (!state.users.some((row) => row.id === organizationAction.userId)) return refused(404, 'NOT_FOUND');
      if (membership(organizationAction.userId)) return refused(409, 'CONFLICT');
      if (unknownRole(organizationAction.roleIds)) return refused(400, 'VALIDATION_FAILED');
      return {
        expected: { status: 201 },
        organizationFacts: orgFacts(true, [organizationAction.userId]),
        apply: (next) => {
          next.organizations
            .find((row) => row.id === organization.id)!
            .members.push({ userId: organizationAction.userId, roleIds: [...organizationAction.roleIds] });
        },
      };
    }
    case 'inviteMember': {
      const judged = judge('members.invite');
      if ('refusal' in judged) return judged.refusal;
      if (unknownRole(organizationAction.roleIds)) return refused(400, 'VALIDATION_FAILED');
      if (!judged.asAdministrator) {
        if (beyond(organizationAction.roleIds)) return refused(403, 'FORBIDDEN');
        if (organizationAction.roleIds.includes(ownerRole.id) && !actsAsOwner(false)) return refused(403, 'FORBIDDEN');
      }
      const invitee = state.users.find((row) => row.id === organizationAction.userId)!;
      return {
        expected: { status: 201 },
        apply: (next, data) => {
          next.invitations.push({
            id: String(data.id),
            organizationId: organization.id,
            userId: invitee.id,
            email: invitee.email,
            roleIds: [...organizationAction.roleIds],
          });
        },
      };
    }
    case 'setMemberRoles': {
      const judged = judge('members.edit');
      if ('refusal' in judged) return judged.refusal;
      const target = membership(organizationAction.userId);
      if (!target) return refused(404, 'NOT_FOUND');
      if (unknownRole(organizationAction.roleIds)) return refused(400, 'VALIDATION_FAILED');
      const next = [...new Set(organizationAction.roleIds)];
      if (!judged.asAdministrator) {
        if (target.userId === actor.id) return refused(403, 'FORBIDDEN');
        if (beyond(target.roleIds)) return refused(403, 'FORBIDDEN');
        if (beyond(next.filter((id) => !target.roleIds.includes(id)))) return refused(403, 'FORBIDDEN');
        const ownerTouched = target.roleIds.includes(ownerRole.id) || next.includes(ownerRole.id);
        if (ownerTouched && !actsAsOwner(false)) return refused(403, 'FORBIDDEN');
      }
      if (target.roleIds.includes(ownerRole.id) && !next.includes(ownerRole.id) && !anotherOwner(target.userId))
        return refused(409, 'CONFLICT');
      return {
        expected: { status: 200 },
        organizationFacts: orgFacts(judged.asAdministrator, [target.userId]),
        apply: (state) => {
          state.organizations
            .find((row) => row.id === organization.id)!
            .members.find((member) => member.userId === target.userId)!.roleIds = next;
        },
      };
    }
    case 'removeMember': {
      const leaving = organizationAction.userId === actor.id;
      const judged = judge(leaving ? null : 'members.remove');
      if ('refusal' in judged) return judged.refusal;
      const target = membership(organizationAction.userId);
      if (!target) return refused(404, 'NOT_FOUND');
      if (!leaving && !judged.asAdministrator) {
        if (beyond(target.roleIds)) return refused(403, 'FORBIDDEN');
        if (target.roleIds.includes(ownerRole.id) && !actsAsOwner(false)) return refused(403, 'FORBIDDEN');
      }
      if (target.roleIds.includes(ownerRole.id) && !anotherOwner(target.userId)) return refused(409, 'CONFLICT');
      return {
        expected: { status: 200 },
        organizationFacts: orgFacts(judged.asAdministrator, [target.userId], leaving),
        apply: (state) => {
          const row = state.organizations.find((other) => other.id === organization.id)!;
          row.members = row.members.filter((member) => member.userId !== target.userId);
        },
      };
    }
  }
  throw new Error(`not an organization action: ${action.kind}`);
}

/**
 * Accepting (decision 065): an unknown, used or withdrawn token is 400
 * `CONFIRMATION_TOKEN_INVALID`; then another address is 403 `FORBIDDEN` (the invitation stays);
 * already a member is 409 `CONFLICT`.
 */
function predictAccept(
  state: ModelState,
  action: Extract<Action, { kind: 'acceptInvitation' }>,
  actor: ModelUser,
): Prediction {
  const invitation = state.invitations.find((row) => row.id === action.invitationId);
  const organization = invitation && state.organizations.find((row) => row.id === invitation.organizationId);
  if (!invitation || !organization) return refused(400, 'CONFIRMATION_TOKEN_INVALID');
  if (actor.email !== invitation.email) return refused(403, 'FORBIDDEN');
  if (organization.members.some((member) => member.userId === actor.id)) return refused(409, 'CONFLICT');
  return {
    expected: { status: 200 },
    organizationFacts: {
      actorId: actor.id,
      organizationId: organization.id,
      // Judged when invited: the inviter's rights, not the invitee's.
      asAdministrator: true,
      memberTargets: [actor.id],
      leaving: false,
    },
    apply: (next) => {
      next.organizations
        .find((row) => row.id === organization.id)!
        .members.push({ userId: actor.id, roleIds: [...invitation.roleIds] });
      next.invitations = next.invitations.filter((row) => row.id !== invitation.id);
    },
  };
}

function predictSignIn(state: ModelState, userId: string): Prediction {
  const user = state.users.find((row) => row.id === userId);
  if (!user) return refused(401, 'INVALID_CREDENTIALS');
  if (!user.enabled) return refused(403, 'ACCOUNT_DISABLED');
  return {
    expected: { status: 200 },
    apply: (next) => {
      next.users.find((row) => row.id === userId)!.session = true;
    },
  };
}

export function permissionNamesOf(state: ModelState, userId: string): Set<string> {
  return new Set(namesOfPermissions(state, [...effectivePermissionIds(state, userId)]));
}

function rolePermissionNames(state: ModelState, roleId: string): string[] {
  return namesOfPermissions(state, state.roles.find((row) => row.id === roleId)?.permissionIds ?? []);
}

function namesOfPermissions(state: ModelState, ids: string[]): string[] {
  return ids.map((id) => state.permissions.find((row) => row.id === id)!.name);
}

/** Role names compare trimmed and case-insensitively. */
function roleNameTaken(state: ModelState, name: string, except?: string): boolean {
  const wanted = name.trim().toLowerCase();
  return state.roles.some((row) => row.id !== except && row.name.trim().toLowerCase() === wanted);
}

function unknown(rows: { id: string }[], ids: string[]): boolean {
  return ids.some((id) => !rows.some((row) => row.id === id));
}

function otherEnabledAdmin(state: ModelState, userId: string): boolean {
  const admin = state.roles.find((row) => row.name === ADMIN && row.isSystem)!;
  return state.users.some((user) => user.id !== userId && user.enabled && user.roleIds.includes(admin.id));
}

export function cloneState(state: ModelState): ModelState {
  return {
    permissions: state.permissions.map((row) => ({ ...row })),
    roles: state.roles.map((row) => ({ ...row, permissionIds: [...row.permissionIds] })),
    users: state.users.map((row) => ({ ...row, roleIds: [...row.roleIds] })),
    organizations: state.organizations.map((row) => ({
      ...row,
      members: row.members.map((member) => ({ ...member, roleIds: [...member.roleIds] })),
    })),
    organizationRoles: state.organizationRoles.map((row) => ({ ...row, permissionIds: [...row.permissionIds] })),
    organizationPermissions: state.organizationPermissions.map((row) => ({ ...row })),
    invitations: state.invitations.map((row) => ({ ...row, roleIds: [...row.roleIds] })),
    organizationTokens: [...state.organizationTokens],
  };
}
