import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from '../common/app-exception.js';
import type { AuthUser } from './auth-user.js';
import { REQUIRED_PERMISSIONS_KEY, type PermissionRequirement } from './permissions.decorator.js';

/** Refuses a caller that lacks the permissions a route declares, naming what is missing. */
@Injectable()
export class PermissionsGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const requirement = this.reflector.getAllAndOverride<PermissionRequirement | undefined>(REQUIRED_PERMISSIONS_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!requirement || requirement.permissions.length === 0) return true;
    const user = context.switchToHttp().getRequest<{ user?: AuthUser }>().user;
    if (!user) throw new AppException('UNAUTHENTICATED', 'Authentication is required.');
    assertPermissions(user, requirement);
    return true;
  }
}

export function assertPermissions(user: Pick<AuthUser, 'has'>, requirement: PermissionRequirement): void {
  const missing = requirement.permissions.filter((permission) => !user.has(permission));
  const allowed = requirement.mode === 'all' ? missing.length === 0 : missing.length < requirement.permissions.length;
  if (allowed) return;
  const needed = requirement.mode === 'all' ? missing : requirement.permissions;
  throw new AppException(
    'FORBIDDEN',
    requirement.mode === 'all'
      ? `Missing permission: ${needed.join(', ')}.`
      : `Missing permission: one of ${needed.join(', ')} is required.`,
    needed.map((permission) => ({ permission })),
  );
}
