import { Injectable } from '@nestjs/common';
import { VersionedCache } from '../infra/redis/versioned-cache.js';
import { UsersRepository } from '../identity/index.js';
import type { PrincipalRecord } from '@auth-rbac/nest-guard/internal';
import { AuthzVersions } from './authz-versions.js';
import { cacheLookups } from '../infra/telemetry/service-metrics.js';
import { AccessRepository } from './access.repository.js';
import type { SessionRef } from '../common/session-ref.js';

/** The caller's own record, as `GET /api/auth/me` shows it. */
export interface CallerProfile {
  id: string;
  name: string;
  email: string;
  mobile: string | null;
  email_verified: boolean;
}

interface CachedPrincipal {
  principal: PrincipalRecord;
  profile: CallerProfile;
}

/**
 * The caller behind an access token: a live session, the user, role names and the union of their
 * permissions. Loaded with one query and cached per session while the authorization versions
 * (see AuthzVersions) are unchanged, so a warm request costs one Redis MGET, or nothing when the
 * counters are in process (embedded database, SINGLE_INSTANCE), instead of a five-table join.
 */
@Injectable()
export class PrincipalService {
  /** Bounds how long a cached caller can outlive a change whose publication failed. */
  static readonly MAX_AGE_MS = 60_000;
  private static readonly MAX_ENTRIES = 10_000;
  private readonly cache = new VersionedCache<CachedPrincipal>({
    maxEntries: PrincipalService.MAX_ENTRIES,
    maxAgeMs: PrincipalService.MAX_AGE_MS,
  });

  constructor(
    private readonly users: UsersRepository,
    private readonly access: AccessRepository,
    private readonly versions: AuthzVersions,
  ) {}

  async load(session: SessionRef): Promise<PrincipalRecord | null> {
    const { sessionId, userId } = session;
    if (!this.versions.enabled) return (await this.fromDatabase(session))?.entry.principal ?? null;
    // Read the versions before the database, so a change that lands in between makes the entry stale.
    // The user id is part of the key: a session id only ever names its own user's entry.
    const versions = await this.versions.read(userId);
    const version = versions && `${versions[0]}|${versions[1]}`;
    const key = `${sessionId}:${userId}`;
    const cached = this.cache.get(key, version);
    cacheLookups.inc({ cache: 'principal', result: cached ? 'hit' : 'miss' });
    if (cached) return cached.principal;
    const loaded = await this.fromDatabase(session);
    if (!loaded) {
      this.cache.delete(key);
      return null;
    }
    // Never past the session's absolute end, which no counter announces.
    this.cache.set(key, version, frozen(loaded.entry), loaded.sessionExpiresAt - Date.now());
    return loaded.entry.principal;
  }

  /**
   * The caller's own record, for a caller the guard has just loaded (`load`) on this request: the
   * entry that load found current or stored (any change to the record bumps the user's version,
   * like a change of roles), else read again (no cache, or versions unreadable).
   */
  async profile(caller: { id: string; sessionId: string }): Promise<CallerProfile | null> {
    const cached = this.cache.peek(`${caller.sessionId}:${caller.id}`);
    if (cached) return cached.profile;
    const row = await this.users.findCallerProfile(caller.id);
    return (
      row && { id: row.id, name: row.name, email: row.email, mobile: row.mobile, email_verified: row.emailVerified }
    );
  }

  private async fromDatabase(session: SessionRef) {
    const row = await this.access.findPrincipalOfActiveSession(session);
    if (!row) return null;
    return {
      entry: {
        principal: {
          id: row.id,
          kind: 'person' as const,
          email: row.email,
          name: row.name,
          roles: row.roles,
          permissions: row.permissions,
        },
        profile: {
          id: row.id,
          name: row.name,
          email: row.email,
          mobile: row.mobile,
          email_verified: row.emailVerified,
        },
      },
      sessionExpiresAt: new Date(row.sessionExpiresAt).getTime(),
    };
  }
}

/**
 * A cached entry is handed to every request of its session as it is (the guard keeps the arrays
 * it is given): frozen, a change by any one request throws instead of reaching the others.
 */
function frozen(entry: CachedPrincipal): CachedPrincipal {
  Object.freeze(entry.principal.roles);
  Object.freeze(entry.principal.permissions);
  Object.freeze(entry.principal);
  Object.freeze(entry.profile);
  return Object.freeze(entry);
}
