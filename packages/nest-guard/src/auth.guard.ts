import {
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  Optional,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import {
  AccessTokenVerifier,
  bearerCredentials,
  extractAccessToken,
  tokenDigest,
  type VerifiedAccessToken,
} from './access-token.js';
import { AuthUser } from './auth-user.js';
import { AUTH_GUARD_OPTIONS, type AuthGuardModuleOptions, type PrincipalRecord } from './auth-guard.options.js';
import {
  DEFAULT_REAUTH_MAX_AGE_SECONDS,
  FRESH_AUTH_KEY,
  hasSecondFactor,
  isFresh,
  SECOND_FACTOR_KEY,
  type FreshAuthRequirement,
} from './fresh-auth.decorator.js';
import {
  organizationMismatch,
  organizationRequired,
  reauthenticationRequired,
  secondFactorRequired,
  unauthenticated,
} from './library-errors.js';
import { ORGANIZATION_PARAM_KEY } from './organization.decorator.js';
import { assertPermissions } from './permission-check.js';
import { REQUIRED_PERMISSIONS_KEY, type PermissionRequirement } from './permissions.decorator.js';
import { PrincipalSource } from './principal-source.js';
import { bearerChallenge } from './protected-resource.js';
import { IS_PUBLIC_KEY } from './public.decorator.js';

/** What a route asks of its callers, read from its decorators once. */
interface RoutePolicy {
  /** `@Public()` without a permission requirement: no token is needed. */
  open: boolean;
  /** `@RequirePermissions` / `@RequireAnyPermission`, when they name any permission. */
  permissions?: PermissionRequirement;
  /** `@RequireSecondFactor()`. */
  secondFactor: boolean;
  /** `@RequireFreshAuth(maxAgeSeconds)`: the age in seconds, the module's default filled in. */
  maxAuthAgeSeconds?: number;
  /** `@OrganizationParam(name)`: the path parameter naming the route's organization. */
  organizationParam?: string;
}

type Handler = ReturnType<ExecutionContext['getHandler']>;
type GuardedRequest = { headers: IncomingHttpHeaders; user?: AuthUser; params?: Record<string, string | undefined> };
type Controller = ReturnType<ExecutionContext['getClass']>;

/**
 * Authentication and permissions in one guard, the one verification path of the auth service
 * and of every service that imports this package: every route needs a valid access token unless
 * it is `@Public()` (deny by default), and `@RequirePermissions` / `@RequireAnyPermission` are
 * enforced with 403 FORBIDDEN naming what is missing. The token is verified against the
 * configured keys; the caller's roles and permissions come from the configured PrincipalSource.
 *
 * A guarded request costs a token digest and a few look-ups in steady state, with no promise: a
 * route's decorators are read once (they are fixed when the class is declared), the verifier keeps
 * the tokens it has verified, the source answers a caller it knows at once (`known`), and the
 * caller built for a token (`AuthUser`) is reused while the source answers with the same record
 * for it. Every check still runs on every request: expiry, revocation (the source), permissions
 * and step-up.
 */
@Injectable()
export class LibraryAuthGuard implements CanActivate {
  private readonly policies = new WeakMap<Handler, WeakMap<Controller, RoutePolicy>>();
  /** The caller last built from each record, and the claims it was built with. */
  private readonly callers = new WeakMap<PrincipalRecord, { claims: VerifiedAccessToken | null; user: AuthUser }>();
  /** With `protectedResource`: the `WWW-Authenticate` of a 401 (RFC 9728 §5.1). */
  private readonly challenge: string | undefined;

  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: AccessTokenVerifier,
    private readonly principals: PrincipalSource,
    @Optional() @Inject(AUTH_GUARD_OPTIONS) private readonly options?: AuthGuardModuleOptions,
  ) {
    const resource = options?.protectedResource?.resource;
    this.challenge = resource !== undefined ? bearerChallenge(resource) : undefined;
  }

  /**
   * A boolean, without a promise, when the verifier and the source know the token already (the
   * steady state): Nest then awaits nothing for the guard. Otherwise a promise of the same checks.
   */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const challenge = this.challenge;
    if (challenge === undefined) return this.check(context);
    let outcome: boolean | Promise<boolean>;
    try {
      outcome = this.check(context);
    } catch (error) {
      throw this.challenged(context, challenge, error);
    }
    return typeof outcome === 'boolean'
      ? outcome
      : outcome.catch((error: unknown) => {
          throw this.challenged(context, challenge, error);
        });
  }

  /** A 401 leaves with the challenge (RFC 9728 §5.1); the error is answered as it was. */
  private challenged(context: ExecutionContext, challenge: string, error: unknown): unknown {
    if (error instanceof HttpException && error.getStatus() === HttpStatus.UNAUTHORIZED && context.getType() === 'http')
      this.sendChallenge(context, challenge);
    return error;
  }

  /**
   * Tells a client without a usable token where to get one: RFC 6750 §3's challenge with the
   * metadata's address, and `error="invalid_token"` when a token was sent.
   */
  private sendChallenge(context: ExecutionContext, challenge: string): void {
    const http = context.switchToHttp();
    const request = http.getRequest<{ headers: IncomingHttpHeaders }>();
    const reply = http.getResponse<{
      header?: (name: string, value: string) => unknown;
      setHeader?: (name: string, value: string) => unknown;
    }>();
    const value = extractAccessToken(request.headers) ? `${challenge}, error="invalid_token"` : challenge;
    // Fastify's reply and Express's response both have `header`; a bare Node response has `setHeader`.
    if (typeof reply.header === 'function') reply.header('WWW-Authenticate', value);
    else reply.setHeader?.('WWW-Authenticate', value);
  }

  private check(context: ExecutionContext): boolean | Promise<boolean> {
    const route = this.policyOf(context.getHandler(), context.getClass());
    if (route.open) return true;
    // Only HTTP requests carry our tokens; anything else is refused rather than let through.
    if (context.getType() !== 'http') throw unauthenticated();

    const request = context.switchToHttp().getRequest<GuardedRequest>();
    const { authorization } = request.headers;
    const presented = typeof authorization === 'string' ? bearerCredentials(authorization) : null;
    if (presented !== null) {
      const claims = this.verifier.remembered(tokenDigest(presented));
      const record = claims && this.principals.known(presented, claims);
      if (record !== undefined) return this.admit(request, route, record, claims!);
    }
    // Not known at once: read as any token is, its form checked.
    const token = extractAccessToken(request.headers);
    if (!token) throw unauthenticated();
    return this.checkAfterLookUp(request, route, token);
  }

  /** The same checks, once the verifier or the source has had to look the token up. */
  private async checkAfterLookUp(request: GuardedRequest, route: RoutePolicy, token: string): Promise<boolean> {
    const claims = await this.verifier.verify(token);
    return this.admit(request, route, await this.principals.load(token, claims), claims);
  }

  /** Every check of the route on the caller the source answered for (null: not authenticated). */
  private admit(
    request: GuardedRequest,
    route: RoutePolicy,
    record: PrincipalRecord | null,
    claims: VerifiedAccessToken | null,
  ): true {
    if (!record) throw unauthenticated();
    const user = this.callerOf(record, claims);
    request.user = user;
    if (route.organizationParam !== undefined) {
      // Before the permissions: an ordinary token holds no organization permission to judge.
      if (user.organizationId === undefined) throw organizationRequired();
      if (request.params?.[route.organizationParam] !== user.organizationId) throw organizationMismatch();
    }
    if (route.permissions) assertPermissions(user, route.permissions);
    // Step-up after the permissions: who may not act at all hears that first.
    if (route.secondFactor && !hasSecondFactor(user.amr)) throw secondFactorRequired();
    if (route.maxAuthAgeSeconds !== undefined && !isFresh(user, route.maxAuthAgeSeconds))
      throw reauthenticationRequired();
    return true;
  }

  /**
   * The caller of a verified token and the source's record of it, built once per record and
   * token. A token verified here speaks for itself (session, kind, `auth_time`, `amr`); otherwise
   * the source (introspection) tells.
   */
  private callerOf(record: PrincipalRecord, claims: VerifiedAccessToken | null): AuthUser {
    const known = this.callers.get(record);
    if (known && known.claims === claims) return known.user;
    const sessionId = claims?.sessionId ?? record.sessionId;
    if (!sessionId) throw unauthenticated();
    const user = new AuthUser({
      id: record.id,
      kind: claims?.kind ?? record.kind ?? 'person',
      email: record.email,
      name: record.name,
      roles: record.roles,
      permissions: record.permissions,
      sessionId,
      authTime: claims ? claims.authTime : record.authTime,
      amr: (claims ? claims.amr : record.amr) ?? [],
      organizationId: claims ? claims.organizationId : record.organizationId,
    });
    this.callers.set(record, { claims, user });
    return user;
  }

  private policyOf(handler: Handler, controller: Controller): RoutePolicy {
    let byController = this.policies.get(handler);
    let policy = byController?.get(controller);
    if (policy) return policy;
    policy = this.readPolicy([handler, controller]);
    if (!byController) this.policies.set(handler, (byController = new WeakMap()));
    byController.set(controller, policy);
    return policy;
  }

  private readPolicy(targets: [Handler, Controller]): RoutePolicy {
    const read = <T>(key: string) => this.reflector.getAllAndOverride<T | undefined>(key, targets);
    const requirement = read<PermissionRequirement>(REQUIRED_PERMISSIONS_KEY);
    const permissions = requirement !== undefined && requirement.permissions.length > 0 ? requirement : undefined;
    const fresh = read<FreshAuthRequirement>(FRESH_AUTH_KEY);
    const organizationParam = read<string>(ORGANIZATION_PARAM_KEY);
    return {
      ...(organizationParam !== undefined ? { organizationParam } : {}),
      // A permission requirement outweighs @Public(): nobody holds a permission without signing in.
      open: read<boolean>(IS_PUBLIC_KEY) === true && !permissions,
      ...(permissions ? { permissions } : {}),
      secondFactor: read<boolean>(SECOND_FACTOR_KEY) === true,
      ...(fresh !== undefined
        ? {
            maxAuthAgeSeconds:
              fresh.maxAgeSeconds ?? this.options?.reauthMaxAgeSeconds ?? DEFAULT_REAUTH_MAX_AGE_SECONDS,
          }
        : {}),
    };
  }
}
