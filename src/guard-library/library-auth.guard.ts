import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import { IS_PUBLIC_KEY } from '../auth/public.decorator.js';
import { AppException } from '../common/app-exception.js';
import { AuthUser } from '../rbac/auth-user.js';
import { REQUIRED_PERMISSIONS_KEY, type PermissionRequirement } from '../rbac/permissions.decorator.js';
import { assertPermissions } from '../rbac/permissions.guard.js';
import { AccessTokenVerifier, extractAccessToken } from './access-token.js';
import { fromAppException, unauthenticated } from './library-errors.js';
import { PrincipalSource } from './principal-source.js';

/**
 * The auth service's two guards in one, for a service that imports them: every route needs a
 * valid access token unless it is `@Public()` (deny by default), and `@RequirePermissions` /
 * `@RequireAnyPermission` are enforced with 403 FORBIDDEN naming what is missing. The token is
 * verified locally; the caller's roles and permissions come from the configured PrincipalSource.
 */
@Injectable()
export class LibraryAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: AccessTokenVerifier,
    private readonly principals: PrincipalSource,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, targets) === true;
    const requirement = this.reflector.getAllAndOverride<PermissionRequirement | undefined>(REQUIRED_PERMISSIONS_KEY, targets);
    const needsPermissions = requirement !== undefined && requirement.permissions.length > 0;
    // A permission requirement outweighs @Public(): nobody holds a permission without signing in.
    if (isPublic && !needsPermissions) return true;
    // Only HTTP requests carry our tokens; anything else is refused rather than let through.
    if (context.getType() !== 'http') throw unauthenticated();

    const request = context.switchToHttp().getRequest<{ headers: IncomingHttpHeaders; user?: AuthUser }>();
    const token = extractAccessToken(request.headers);
    if (!token) throw unauthenticated();
    const claims = await this.verifier.verify(token);
    const record = await this.principals.load(token, claims);
    if (!record) throw unauthenticated();

    const user = new AuthUser(record.id, record.email, record.name, record.roles, record.permissions, claims.sessionId);
    request.user = user;
    if (needsPermissions) {
      try {
        assertPermissions(user, requirement);
      } catch (error) {
        throw error instanceof AppException ? fromAppException(error) : error;
      }
    }
    return true;
  }
}
