import { IS_PUBLIC_KEY, REQUIRED_PERMISSIONS_KEY, type AuthUser } from '@auth-rbac/nest-guard/internal';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from '../common/app-exception.js';

/**
 * A service token (client credentials) passes the guard like a user's, with its client's
 * permissions: it may call the routes guarded by permissions. Routes without a permission
 * requirement act for the signed-in person (their account, sessions, profile): a service token
 * is refused there with 403, not let through to look for a person who does not exist.
 */
@Injectable()
export class PersonOnlyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const user = context.switchToHttp().getRequest<{ user?: AuthUser }>().user;
    if (!user || user.kind !== 'service') return true;
    const targets = [context.getHandler(), context.getClass()];
    const requirement = this.reflector.getAllAndOverride<{ permissions: string[] } | undefined>(
      REQUIRED_PERMISSIONS_KEY,
      targets,
    );
    if ((requirement?.permissions.length ?? 0) > 0) return true;
    if (this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, targets) === true) return true;
    throw new AppException('FORBIDDEN', 'This route acts for a signed-in person; a service token cannot call it.');
  }
}
