import { Injectable } from '@nestjs/common';
import { UsersRepository } from '../users/users.repository.js';
import { AuthUser } from '@auth-rbac/nest-guard';
import { AuthzVersions } from './authz-versions.js';
import { cacheLookups } from '../metrics/service-metrics.js';

interface CachedPrincipal {
  principal: AuthUser;
  userId: string;
  userVersion: string;
  globalVersion: string;
  sessionExpiresAt: number;
  loadedAt: number;
}

/**
 * The caller behind an access token: a live session, the user, role names and the union of their
 * permissions. Loaded with one query and cached per session while the authorization versions
 * (see AuthzVersions) are unchanged, so the common request costs one Redis MGET, or nothing on
 * the embedded database, instead of a five-table join.
 */
@Injectable()
export class PrincipalService {
  /** Bounds how long a cached caller can outlive a change whose publication failed. */
  static readonly MAX_AGE_MS = 60_000;
  private static readonly MAX_ENTRIES = 10_000;
  private readonly cache = new Map<string, CachedPrincipal>();

  constructor(
    private readonly users: UsersRepository,
    private readonly versions: AuthzVersions,
  ) {}

  async load(sessionId: string, userId: string): Promise<AuthUser | null> {
    if (!this.versions.enabled) return (await this.fromDatabase(sessionId, userId))?.principal ?? null;
    // Read the versions before the database, so a change that lands in between makes the entry stale.
    const versions = await this.versions.read(userId);
    const now = Date.now();
    const cached = this.cache.get(sessionId);
    if (
      cached &&
      versions &&
      cached.userId === userId &&
      cached.userVersion === versions[0] &&
      cached.globalVersion === versions[1] &&
      cached.sessionExpiresAt > now &&
      now - cached.loadedAt < PrincipalService.MAX_AGE_MS
    ) {
      cacheLookups.inc({ cache: 'principal', result: 'hit' });
      return cached.principal;
    }
    cacheLookups.inc({ cache: 'principal', result: 'miss' });
    const loaded = await this.fromDatabase(sessionId, userId);
    if (!loaded || !versions) {
      this.cache.delete(sessionId);
      return loaded?.principal ?? null;
    }
    this.remember(sessionId, {
      principal: loaded.principal,
      userId,
      userVersion: versions[0],
      globalVersion: versions[1],
      sessionExpiresAt: loaded.sessionExpiresAt,
      loadedAt: now,
    });
    return loaded.principal;
  }

  private async fromDatabase(sessionId: string, userId: string) {
    const row = await this.users.findPrincipalOfActiveSession(sessionId, userId);
    if (!row) return null;
    return {
      principal: new AuthUser(row.id, row.email, row.name, row.roles, row.permissions, sessionId),
      sessionExpiresAt: new Date(row.session_expires_at).getTime(),
    };
  }

  private remember(sessionId: string, entry: CachedPrincipal): void {
    this.cache.delete(sessionId);
    if (this.cache.size >= PrincipalService.MAX_ENTRIES) {
      // Maps iterate in insertion order: drop the least recently loaded entry.
      this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(sessionId, entry);
  }
}
