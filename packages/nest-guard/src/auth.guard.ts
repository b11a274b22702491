import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import { AccessTokenVerifier, extractAccessToken } from './access-token.js';
import { AuthUser } from './auth-user.js';
import { unauthenticated } from './library-errors.js';
import { assertPermissions } from './permission-check.js';
import { REQUIRED_PERMISSIONS_KEY, type PermissionRequirement } from './permissions.decorator.js';
import { PrincipalSource } from './principal-source.js';
import { IS_PUBLIC_KEY } from './public.decorator.js';

/**
 * Authentication and permissions in one guard, the one verification path of the auth service
 * and of every service that imports this package: every route needs a valid access token unless
 * it is `@Public()` (deny by default), and `@RequirePermissions` / `@RequireAnyPermission` are
 * enforced with 403 FORBIDDEN naming what is missing. The token is verified against the
 * configured keys; the caller's roles and permissions come from the configured PrincipalSource.
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
    const requirement = this.reflector.getAllAndOverride<PermissionRequirement | undefined>(
      REQUIRED_PERMISSIONS_KEY,
      targets,
    );
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
    const sessionId = claims?.sessionId ?? record?.sessionId;
    if (!record || !sessionId) throw unauthenticated();

    const user = new AuthUser(record.id, record.email, record.name, record.roles, record.permissions, sessionId);
    request.user = user;
    if (needsPermissions) assertPermissions(user, requirement);
    return true;
  }
}
