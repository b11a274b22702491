import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { stepUpClaims, type VerifiedAccessToken } from './access-token.js';
import {
  DEFAULT_CACHE_MAX_ENTRIES,
  DEFAULT_REMOTE_CACHE_TTL_MS,
  DEFAULT_REMOTE_TIMEOUT_MS,
  type AuthGuardModuleOptions,
  type DataSourcePermissionsOptions,
  type PermissionsFrom,
  type PrincipalRecord,
  type QueryPermissionsOptions,
  type RemotePermissionsOptions,
  type SqlRunner,
} from './auth-guard.options.js';
import { authServiceUnavailable } from './library-errors.js';
import { PRINCIPAL_OF_ACTIVE_SESSION_SQL } from './principal-query.js';
import { TtlCache } from './ttl-cache.js';
import type { FetchLike } from './verification-keys.js';

/**
 * Where the caller's roles and permissions come from, once the token is verified. Null means
 * the session behind the token is no longer live (logged out, reset, reused, expired) or the
 * user is gone: the guard answers 401. `claims` is null when the token could not be verified
 * locally (the auth service publishes no keys): only introspection can then answer.
 */
export abstract class PrincipalSource {
  abstract load(token: string, claims: VerifiedAccessToken | null): Promise<PrincipalRecord | null>;
}

/** A source behind a short per-token cache. */
class CachedPrincipalSource extends PrincipalSource {
  private readonly cache: TtlCache<PrincipalRecord | null>;

  constructor(
    private readonly inner: Loader,
    private readonly ttlMs: number,
    maxEntries: number,
  ) {
    super();
    this.cache = new TtlCache(ttlMs, maxEntries);
  }

  load(token: string, claims: VerifiedAccessToken | null): Promise<PrincipalRecord | null> {
    if (this.ttlMs === 0) return this.inner(token, claims);
    // Keyed by a digest, so the cache does not hold bearer tokens.
    const key = createHash('sha256').update(token).digest('base64url');
    return this.cache.getOrLoad(key, () => this.inner(token, claims));
  }
}

type Loader = (token: string, claims: VerifiedAccessToken | null) => Promise<PrincipalRecord | null>;

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
  // RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined.
  const credentials = Buffer.from(
    `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`,
  ).toString('base64');
  return async (token, claims) => {
    let body: unknown;
    try {
      const response = await fetchImpl(url, {
        method: 'POST',
        headers: {
          authorization: `Basic ${credentials}`,
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

/** `{active: true, sub, sid, email, name?, roles, permissions, auth_time?, amr?}`, or null for anything else. */
export function principalFromIntrospection(answer: Record<string, unknown> | null): PrincipalRecord | null {
  if (!answer || answer.active !== true) return null;
  const { sub, sid, email, name, roles, permissions } = answer;
  if (typeof sub !== 'string' || typeof sid !== 'string' || typeof email !== 'string') return null;
  if (!isStringArray(roles) || !isStringArray(permissions)) return null;
  return {
    id: sub,
    sessionId: sid,
    email,
    name: typeof name === 'string' ? name : '',
    roles: [...roles],
    permissions: [...permissions],
    ...stepUpClaims(answer),
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

export { PRINCIPAL_OF_ACTIVE_SESSION_SQL };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads the auth service's tables through the importing service's own connection. */
export function databaseQuery(
  dataSource: SqlRunner,
): (userId: string, sessionId: string) => Promise<PrincipalRecord | null> {
  return async (userId, sessionId) => {
    // Ids are uuid columns: anything else could only fail in SQL, so answer it here.
    if (!UUID.test(userId) || !UUID.test(sessionId)) return null;
    const result = await dataSource.query(PRINCIPAL_OF_ACTIVE_SESSION_SQL, [sessionId, userId]);
    const rows = Array.isArray(result) ? result : (result as { rows?: unknown[] } | null)?.rows;
    const row = rows?.[0] as Record<string, unknown> | undefined;
    if (!row) return null;
    return {
      id: String(row.id),
      name: String(row.name),
      email: String(row.email),
      roles: (row.roles as string[]) ?? [],
      permissions: (row.permissions as string[]) ?? [],
    };
  };
}

/**
 * The source the options describe: introspection when `authUrl` is given, else `permissionsFrom`.
 * Remote sources are cached 5 s by default (concurrent look-ups of one token share one call),
 * database ones not at all.
 */
export function createPrincipalSource(options: AuthGuardModuleOptions, fetchImpl?: FetchLike): PrincipalSource {
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
    return new CachedPrincipalSource(
      introspectionLoader({ authUrl, clientId, clientSecret, timeoutMs: options.timeoutMs }, fetchImpl),
      options.cacheTtlMs ?? DEFAULT_REMOTE_CACHE_TTL_MS,
      options.cacheMaxEntries ?? DEFAULT_CACHE_MAX_ENTRIES,
    );
  }
  const maxEntries = from.cacheMaxEntries ?? DEFAULT_CACHE_MAX_ENTRIES;
  if (isRemote(from)) {
    return new CachedPrincipalSource(
      remoteLoader(from, fetchImpl),
      from.cacheTtlMs ?? DEFAULT_REMOTE_CACHE_TTL_MS,
      maxEntries,
    );
  }
  const query = isQuery(from) ? from.query : isDataSource(from) ? databaseQuery(from.dataSource) : undefined;
  if (!query) {
    throw new Error('AuthGuardModule: `permissionsFrom` needs one of `url`, `query` or `dataSource`.');
  }
  // These sources need claims verified here: a source that cannot verify is a configuration error.
  return new CachedPrincipalSource(
    (_token, claims) => (claims ? query(claims.userId, claims.sessionId) : Promise.resolve(null)),
    from.cacheTtlMs ?? 0,
    maxEntries,
  );
}

function isRemote(from: PermissionsFrom): from is RemotePermissionsOptions {
  return typeof (from as RemotePermissionsOptions).url === 'string';
}

function isQuery(from: PermissionsFrom): from is QueryPermissionsOptions {
  return typeof (from as QueryPermissionsOptions).query === 'function';
}

function isDataSource(from: PermissionsFrom): from is DataSourcePermissionsOptions {
  return typeof (from as DataSourcePermissionsOptions).dataSource?.query === 'function';
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
