import { Permissions } from '@auth-rbac/nest-guard';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';

/**
 * The one privilege policy (contract, "Privilege boundaries"), as pure functions over effective
 * permission sets, in the shape of Kubernetes RBAC's escalation check: an actor may grant only
 * what it holds, and may act only on accounts and roles whose permissions it holds. Every write
 * path of the admin API asks these functions; none decides privilege on its own.
 *
 * No rule here is keyed on a role's name except the specification's `admin`.
 */

/** Holding any of these (or the admin role) makes an account privileged. */
export const PRIVILEGED_PERMISSIONS: readonly string[] = Object.freeze([
  Permissions.UsersCreate,
  Permissions.UsersEdit,
  Permissions.UsersDelete,
  Permissions.RolesCreate,
  Permissions.RolesEdit,
  Permissions.RolesDelete,
  Permissions.SettingsEdit,
  // A client's secret, redirect URIs and first-party flag decide who may sign people in without consent.
  Permissions.ClientsCreate,
  Permissions.ClientsEdit,
  Permissions.ClientsDelete,
  // Managing any organization's members, owners included, takes over any customer (decision 065).
  Permissions.OrganizationsEdit,
  Permissions.OrganizationsDelete,
]);

/**
 * Privileged accounts get the administrators' rules: the SMS second factor on password logins and
 * no one-factor SMS sign-in.
 */
export function isPrivileged(roles: Iterable<string>, permissions: Iterable<string>): boolean {
  for (const role of roles) if (role === SystemRoles.Admin) return true;
  const held = new Set(permissions);
  return PRIVILEGED_PERMISSIONS.some((permission) => held.has(permission));
}

/**
 * The one subset rule, "grant ⊆ own" and "target ⊆ own" alike: the permissions of a grant (a
 * role's new set, a role given to a user) or of a target (a user's effective set, a role's set, a
 * single permission) that the actor lacks. Nobody grants, or acts on, more than they hold.
 */
export function missingPermissions(actorPermissions: Iterable<string>, required: Iterable<string>): string[] {
  return lacking(actorPermissions, required);
}

/** "The admin role keeps every permission": the permissions an update of a role would take from `admin`. */
export function removedFromAdminRole(roleName: string, current: Iterable<string>, next: Iterable<string>): string[] {
  if (roleName !== SystemRoles.Admin) return [];
  return lacking(next, current);
}

/** The members of `wanted` not in `held`, sorted and without repeats, so messages are stable. */
function lacking(held: Iterable<string>, wanted: Iterable<string>): string[] {
  const own = new Set(held);
  return [...new Set(wanted)].filter((permission) => !own.has(permission)).sort();
}
