import { Inject, Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import { AccessTokenVerifier, extractAccessToken } from './access-token.js';
import { AuthUser } from './auth-user.js';
import { AUTH_GUARD_OPTIONS, type AuthGuardModuleOptions } from './auth-guard.options.js';
import {
  DEFAULT_REAUTH_MAX_AGE_SECONDS,
  FRESH_AUTH_KEY,
  hasSecondFactor,
  isFresh,
  SECOND_FACTOR_KEY,
  type FreshAuthRequirement,
} from './fresh-auth.decorator.js';
import { reauthenticationRequired, secondFactorRequired, unauthenticated } from './library-errors.js';
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
    @Optional() @Inject(AUTH_GUARD_OPTIONS) private readonly options?: AuthGuardModuleOptions,
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

    // A token verified here speaks for itself; otherwise the source (introspection) tells.
    const authTime = claims ? claims.authTime : record.authTime;
    const amr = (claims ? claims.amr : record.amr) ?? [];
    const user = new AuthUser(
      record.id,
      record.email,
      record.name,
      record.roles,
      record.permissions,
      sessionId,
      authTime,
      amr,
    );
    request.user = user;
    if (needsPermissions) assertPermissions(user, requirement);
    this.assertStepUp(user, targets);
    return true;
  }

  /** `@RequireFreshAuth` and `@RequireSecondFactor`, after the permissions: who may not act at all hears that first. */
  private assertStepUp(user: AuthUser, targets: Parameters<Reflector['getAllAndOverride']>[1]): void {
    if (
      this.reflector.getAllAndOverride<boolean | undefined>(SECOND_FACTOR_KEY, targets) === true &&
      !hasSecondFactor(user.amr)
    ) {
      throw secondFactorRequired();
    }
    const fresh = this.reflector.getAllAndOverride<FreshAuthRequirement | undefined>(FRESH_AUTH_KEY, targets);
    if (fresh === undefined) return;
    const maxAge = fresh.maxAgeSeconds ?? this.options?.reauthMaxAgeSeconds ?? DEFAULT_REAUTH_MAX_AGE_SECONDS;
    if (!isFresh(user, maxAge)) throw reauthenticationRequired();
  }
}
