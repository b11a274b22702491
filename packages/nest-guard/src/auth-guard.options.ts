import type { CallerKind } from './auth-user.js';
import type { KeySource } from './verification-keys.js';

/**
 * How another Nest service configures the guard. The whole setup is
 * `{ authUrl, clientId, clientSecret }`: tokens are checked against the auth service's published
 * keys (or `secret` under HS256), each caller is introspected once with those client credentials,
 * and the auth service's signed event stream says when that answer changes.
 */
export interface AuthGuardModuleOptions extends CacheOptions {
  /** Base URL of the auth service, e.g. `http://auth:3000`. */
  authUrl?: string;
  /** This service's introspection client (the auth service's `SERVICE_CLIENTS` or `create-client`). */
  clientId?: string;
  clientSecret?: string;
  /** How long one call to the auth service may take before the request is answered 503. */
  timeoutMs?: number;
  /**
   * The auth service's `ISSUER` (its tokens' `iss`). Default with `authUrl`: the `issuer` of its
   * discovery document (`/.well-known/openid-configuration`), read once. Tokens of another issuer
   * are refused.
   */
  issuer?: string;
  /** The `aud` accepted in access tokens; default the issuer (the auth service's default audience). */
  audience?: string;
  /** The auth service's `JWT_SECRET`; its UTF-8 bytes are the HS256 key. */
  secret?: string;
  /** Same as `secret`, named like the auth service's variable. */
  jwtSecret?: string;
  /** Earlier secrets still accepted during a rotation (`JWT_PREVIOUS_SECRETS`). */
  previousSecrets?: string[];
  /** PEM public keys (ES256 or EdDSA) to verify with instead of a secret. */
  publicKeys?: string[];
  /** Any other source of verification keys (the auth service passes its own key set). */
  keys?: KeySource;
  /** Where the caller's roles and permissions come from; with `authUrl` it is the auth service. */
  permissionsFrom?: PermissionsFrom;
  /**
   * How revocations reach this service with client credentials: `'events'` (the default) follows
   * the auth service's signed event stream, so a caller is looked up once and a guarded request
   * makes no call in steady state; `'introspection'` looks each token up again after `cacheTtlMs`.
   */
  revocation?: 'events' | 'introspection';
  /** How long the event stream may be down before callers are introspected again (or refused). */
  maxEventLagMs?: number;
  /** While the event stream lags past `maxEventLagMs`, answer 503 instead of introspecting. */
  failClosed?: boolean;
  /**
   * Refuse to start when a `@RequirePermissions` / `@RequireAnyPermission` names a permission the
   * auth service does not have (`GET /api/auth/permissions`, with the client credentials).
   */
  strictPermissions?: boolean;
  /** The default of `@RequireFreshAuth()` without an argument, in seconds (300). */
  reauthMaxAgeSeconds?: number;
  /**
   * OAuth 2.0 Protected Resource Metadata (RFC 9728): this service serves
   * `GET /.well-known/oauth-protected-resource` (with the resource's path appended when it has
   * one) naming the auth service as its authorization server, and its 401s carry
   * `WWW-Authenticate: Bearer resource_metadata="…"`, which is how an MCP client or an agent finds
   * where to get a token. Without `audience`, tokens whose `aud` is `resource` are accepted beside
   * those for the issuer.
   */
  protectedResource?: ProtectedResourceOptions;
}

export interface ProtectedResourceOptions {
  /** This service's resource identifier: an absolute `https` URL (`http` on a loopback host), no fragment. */
  resource: string;
  /** The scopes this service understands (`scopes_supported`). */
  scopes?: string[];
  /** A human-readable name (`resource_name`). */
  name?: string;
}

export const AUTH_GUARD_OPTIONS = Symbol('AUTH_GUARD_OPTIONS');

export type PermissionsFrom = RemotePermissionsOptions | QueryPermissionsOptions;

export interface CacheOptions {
  /**
   * How long a caller's roles and permissions are reused, per access token. A revoked session or
   * a changed role is seen by this service at the latest this long after the change.
   */
  cacheTtlMs?: number;
  /**
   * Upper bound of cached callers, and of verified tokens (each kept until its `exp`); the least
   * recently used entry goes first.
   */
  cacheMaxEntries?: number;
}

/** Ask the auth service: `GET ${url}/api/auth/me` with the caller's token (prefer `authUrl`). */
export interface RemotePermissionsOptions extends CacheOptions {
  /** Base URL of the auth service, e.g. `http://auth:3000`. */
  url: string;
  /** How long one call to the auth service may take before the request is answered 503. */
  timeoutMs?: number;
}

/** Load the caller yourself, e.g. from a database or a cache you already have. */
export interface QueryPermissionsOptions extends CacheOptions {
  /**
   * The caller of a live session, or null when the session is revoked or expired or the user is
   * gone. `kind` says whether the token names a person (`userId` a user) or a service client
   * (`userId` the client id, `sessionId` its token's id).
   */
  query: (session: {
    userId: string;
    sessionId: string;
    kind: CallerKind;
    /** The organization of an organization token (`org_id`): answer that organization's roles and permissions. */
    organizationId?: string;
  }) => Promise<PrincipalRecord | null>;
}

/** The caller as the auth service knows it. */
export interface PrincipalRecord {
  id: string;
  /** A person or a service client, when the source tells it (introspection does); else the token's. */
  kind?: CallerKind;
  email: string;
  name: string;
  roles: string[];
  permissions: string[];
  /** The session of the token, when the source tells it (introspection does). */
  sessionId?: string;
  /** The token's `auth_time` and `amr`, when the source tells them (introspection does). */
  authTime?: number;
  amr?: string[];
  /** The token's organization (`org_id`), when the source tells it (introspection does). */
  organizationId?: string;
}

export const DEFAULT_REMOTE_CACHE_TTL_MS = 5_000;
export const DEFAULT_CACHE_MAX_ENTRIES = 10_000;
export const DEFAULT_REMOTE_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_EVENT_LAG_MS = 2_000;

/** `cacheMaxEntries` as every cache of the package takes it: a whole number of entries, at least 1. */
export function checkedMaxEntries(maxEntries: number): number {
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new Error('AuthGuardModule: cacheMaxEntries must be an integer >= 1.');
  return maxEntries;
}
