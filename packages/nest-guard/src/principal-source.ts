import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import {
  callerKindOf,
  stepUpClaims,
  tokenDigest,
  type AccessTokenVerifier,
  type VerifiedAccessToken,
} from './access-token.js';
import {
  checkedMaxEntries,
  DEFAULT_CACHE_MAX_ENTRIES,
  DEFAULT_MAX_EVENT_LAG_MS,
  DEFAULT_REMOTE_CACHE_TTL_MS,
  DEFAULT_REMOTE_TIMEOUT_MS,
  type AuthGuardModuleOptions,
  type PermissionsFrom,
  type PrincipalRecord,
  type QueryPermissionsOptions,
  type RemotePermissionsOptions,
} from './auth-guard.options.js';
import { authServiceUnavailable } from './library-errors.js';
import { PrincipalSource } from './principal-source.base.js';
import { EventDrivenPrincipalSource } from './event-driven-principal-source.js';
import { SecurityEventSubscriber } from './security-event-subscriber.js';
import type { FetchLike, KeySource } from './verification-keys.js';

export { PrincipalSource };

/**
 * A source behind a short per-token cache of its answers (promises, so concurrent look-ups of one
 * token share one load): an answer is reused for `ttlMs` from the moment its load began (so
 * anything revoked before a load began is seen by it), a failed load is not kept, and at most
 * `maxEntries` tokens are kept, the least recently used going first. A TTL of 0 loads every time.
 */
export class CachedPrincipalSource extends PrincipalSource {
  private readonly cache: LRUCache<string, Promise<PrincipalRecord | null>> | undefined;

  constructor(
    private readonly inner: Loader,
    ttlMs: number,
    maxEntries: number,
    /** The clock the TTL is measured by (performance.now() by default). */
    clock?: { now(): number },
  ) {
    super();
    if (!Number.isFinite(ttlMs) || ttlMs < 0) throw new Error('AuthGuardModule: cacheTtlMs must be a number >= 0.');
    this.cache =
      ttlMs > 0
        ? new LRUCache({
            max: checkedMaxEntries(maxEntries),
            ttl: ttlMs,
            ttlResolution: 0,
            ...(clock ? { perf: clock } : {}),
          })
        : undefined;
  }

  /** How many tokens' answers are kept now. */
  get size(): number {
    return this.cache?.size ?? 0;
  }

  load(token: string, claims: VerifiedAccessToken | null): Promise<PrincipalRecord | null> {
    if (!this.cache) return this.inner(token, claims);
    // Keyed by a digest (the verifier's when it verified the token), so no bearer token is kept.
    const key = claims?.digest ?? tokenDigest(token);
    const hit = this.cache.get(key);
    if (hit) return hit;
    const loading = this.inner(token, claims);
    this.cache.set(key, loading);
    loading.catch(() => {
      if (this.cache!.peek(key) === loading) this.cache!.delete(key);
    });
    return loading;
  }
}

export type Loader = (token: string, claims: VerifiedAccessToken | null) => Promise<PrincipalRecord | null>;

const logger = new Logger('AuthGuardModule');

/**
 * Asks the auth service who the caller is (`GET /api/auth/me` with the caller's own token): the
 * service checks the session, so a revoked token is refused here once its cache entry ages out.
 * A 401 from the service is "not authenticated"; anything else unexpected is 503, never a pass.
 */
export function remoteLoader(
  options: RemotePermissionsOptions,
  fetchImpl: FetchLike = globalThis.fetch as unknown as FetchLike,
): Loader {
  const meUrl = `${baseUrlOf(options.url)}/api/auth/me`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS;
  return async (token, claims) => {
    let status: number;
    let body: unknown;
    try {
      const response = await fetchImpl(meUrl, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      if (status === 401) return null;
      if (!response.ok) throw new Error(`status ${status}`);
      body = await response.json();
    } catch (error) {
      logger.warn(`The auth service did not answer who the caller is: ${(error as Error).message}`);
      throw authServiceUnavailable();
    }
    const record = principalFromMeResponse(body);
    if (!record) {
      logger.warn('The auth service answered /api/auth/me with an unexpected body.');
      throw authServiceUnavailable();
    }
    // The service answers for the token it was given; a different user would be a broken proxy.
    return claims && record.id === claims.userId ? record : null;
  };
}

/**
 * Asks the auth service about the token (RFC 7662 introspection) with this service's client
 * credentials: `active: false` is "not authenticated"; an unreachable or slow service, a refused
 * client (a configuration error, logged) or an unexpected body is 503, never a pass and never a hang.
 */
export function introspectionLoader(
  options: { authUrl: string; clientId: string; clientSecret: string; timeoutMs?: number },
  fetchImpl: FetchLike = globalThis.fetch as unknown as FetchLike,
): Loader {
  const url = `${baseUrlOf(options.authUrl)}/api/auth/introspect`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS;
  const authorization = basicAuthorization(options.clientId, options.clientSecret);
  return async (token, claims) => {
    let body: unknown;
    try {
      const response = await fetchImpl(url, {
        method: 'POST',
        headers: {
          authorization,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token }).toString(),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.status === 401)
        throw new Error('the client credentials were refused (check clientId and clientSecret)');
      if (!response.ok) throw new Error(`status ${response.status}`);
      body = await response.json();
    } catch (error) {
      logger.warn(`The auth service did not answer an introspection: ${(error as Error).message}`);
      throw authServiceUnavailable();
    }
    const answer = body as Record<string, unknown> | null;
    if (answer?.active === false) return null;
    const record = principalFromIntrospection(answer);
    if (!record) {
      logger.warn('The auth service answered an introspection with an unexpected body.');
      throw authServiceUnavailable();
    }
    // A token verified here must be the one the service describes.
    if (claims && (claims.userId !== record.id || claims.sessionId !== record.sessionId)) return null;
    return record;
  };
}

/**
 * `{active: true, sub, sid, email, name?, roles, permissions, client_id?, auth_time?, amr?}`, or
 * null for anything else; the caller's kind is read from `sub` and `client_id` as a token's is.
 */
export function principalFromIntrospection(answer: Record<string, unknown> | null): PrincipalRecord | null {
  if (!answer || answer.active !== true) return null;
  const { sub, sid, email, name, roles, permissions } = answer;
  if (typeof sub !== 'string' || typeof sid !== 'string' || typeof email !== 'string') return null;
  if (!isStringArray(roles) || !isStringArray(permissions)) return null;
  return {
    id: sub,
    kind: callerKindOf(answer),
    sessionId: sid,
    email,
    name: typeof name === 'string' ? name : '',
    roles: [...roles],
    permissions: [...permissions],
    ...stepUpClaims(answer),
    ...(typeof answer.org_id === 'string' ? { organizationId: answer.org_id } : {}),
  };
}

/** `{success: true, data: {id, name, email, mobile, roles, permissions}}`, or null for anything else. */
export function principalFromMeResponse(body: unknown): PrincipalRecord | null {
  const data = (body as { success?: unknown; data?: Record<string, unknown> } | null)?.data;
  if ((body as { success?: unknown } | null)?.success !== true || !data || typeof data !== 'object') return null;
  const { id, name, email, roles, permissions } = data;
  if (typeof id !== 'string' || typeof email !== 'string' || typeof name !== 'string') return null;
  if (!isStringArray(roles) || !isStringArray(permissions)) return null;
  return { id, name, email, roles: [...roles], permissions: [...permissions] };
}

/**
 * The source the options describe. With `authUrl` and client credentials: revocation by events
 * (the default when the tokens can be verified here), else introspection behind `cacheTtlMs`
 * (concurrent look-ups of one token share one call). Otherwise `permissionsFrom`.
 */
export function createPrincipalSource(
  options: AuthGuardModuleOptions,
  fetchImpl?: FetchLike,
  keys?: KeySource,
  verifier?: Pick<AccessTokenVerifier, 'forget'>,
): PrincipalSource {
  const from = options.permissionsFrom;
  if (!from) {
    const { authUrl, clientId, clientSecret } = options;
    if (
      typeof authUrl !== 'string' ||
      typeof clientId !== 'string' ||
      !clientId ||
      typeof clientSecret !== 'string' ||
      !clientSecret
    ) {
      throw new Error(
        'AuthGuardModule: give `authUrl`, `clientId` and `clientSecret` (or a `permissionsFrom` source).',
      );
    }
    const introspect = introspectionLoader(
      { authUrl, clientId, clientSecret, timeoutMs: options.timeoutMs },
      fetchImpl,
    );
    const introspected = new CachedPrincipalSource(
      introspect,
      options.cacheTtlMs ?? DEFAULT_REMOTE_CACHE_TTL_MS,
      options.cacheMaxEntries ?? DEFAULT_CACHE_MAX_ENTRIES,
    );
    const revocation = options.revocation ?? 'events';
    if (revocation !== 'events' && revocation !== 'introspection')
      throw new Error("AuthGuardModule: `revocation` is 'events' or 'introspection'.");
    if (revocation === 'introspection' || !keys) return introspected;
    const maxEventLagMs = options.maxEventLagMs ?? DEFAULT_MAX_EVENT_LAG_MS;
    if (!Number.isFinite(maxEventLagMs) || maxEventLagMs < 0)
      throw new Error('AuthGuardModule: maxEventLagMs must be a number >= 0.');
    const holder: { source?: EventDrivenPrincipalSource } = {};
    const subscriber = new SecurityEventSubscriber({
      url: `${baseUrlOf(authUrl)}/api/auth/events`,
      authorization: basicAuthorization(clientId, clientSecret),
      keys,
      onEvent: (event) => holder.source?.apply(event),
    });
    holder.source = new EventDrivenPrincipalSource({
      load: introspect,
      fallback: introspected,
      subscriber,
      maxEventLagMs,
      failClosed: options.failClosed === true,
      maxEntries: options.cacheMaxEntries ?? DEFAULT_CACHE_MAX_ENTRIES,
      ...(verifier ? { verifiedTokens: verifier } : {}),
    });
    return holder.source;
  }
  const maxEntries = from.cacheMaxEntries ?? DEFAULT_CACHE_MAX_ENTRIES;
  if (isRemote(from)) {
    return new CachedPrincipalSource(
      remoteLoader(from, fetchImpl),
      from.cacheTtlMs ?? DEFAULT_REMOTE_CACHE_TTL_MS,
      maxEntries,
    );
  }
  if (!isQuery(from)) throw new Error('AuthGuardModule: `permissionsFrom` needs one of `url` or `query`.');
  // These sources need claims verified here: a source that cannot verify is a configuration error.
  return new CachedPrincipalSource(
    (_token, claims) =>
      claims
        ? from.query({
            userId: claims.userId,
            sessionId: claims.sessionId,
            kind: claims.kind,
            ...(claims.organizationId !== undefined ? { organizationId: claims.organizationId } : {}),
          })
        : Promise.resolve(null),
    from.cacheTtlMs ?? 0,
    maxEntries,
  );
}

/** `Basic base64(id:secret)`, each part form-encoded first (RFC 6749 §2.3.1). */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
}
function isRemote(from: PermissionsFrom): from is RemotePermissionsOptions {
  return typeof (from as RemotePermissionsOptions).url === 'string';
}

function isQuery(from: PermissionsFrom): from is QueryPermissionsOptions {
  return typeof (from as QueryPermissionsOptions).query === 'function';
}

export function baseUrlOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`AuthGuardModule: the auth service URL is not a URL: "${url}".`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error('AuthGuardModule: the auth service URL must be an http(s) URL.');
  }
  return parsed.toString().replace(/\/+$/, '');
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
