import type { AuthUser } from './auth-user.js';
import { forbidden } from './library-errors.js';
import type { PermissionRequirement } from './permissions.decorator.js';

/** Refuses a caller that lacks what a route requires: 403 FORBIDDEN naming the missing permissions. */
export function assertPermissions(user: Pick<AuthUser, 'has'>, requirement: PermissionRequirement): void {
  const missing = requirement.permissions.filter((permission) => !user.has(permission));
  const allowed = requirement.mode === 'all' ? missing.length === 0 : missing.length < requirement.permissions.length;
  if (allowed) return;
  const needed = requirement.mode === 'all' ? missing : requirement.permissions;
  throw forbidden(
    requirement.mode === 'all'
      ? `Missing permission: ${needed.join(', ')}.`
      : `Missing permission: one of ${needed.join(', ')} is required.`,
    needed.map((permission) => ({ permission })),
  );
}
