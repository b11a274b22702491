import { Injectable } from '@nestjs/common';
import { VersionCounters } from '../infra/redis/version-counters.js';

const GLOBAL_KEY = 'authz:v:global';
const userKey = (userId: string) => `authz:v:user:${userId}`;

/**
 * When a cached caller is stale: one counter per user (their roles, their sessions) and one
 * global (role and permission definitions), shared by every instance through VersionCounters.
 */
@Injectable()
export class AuthzVersions {
  constructor(private readonly counters: VersionCounters) {}

  get enabled(): boolean {
    return this.counters.enabled;
  }

  /** `[userVersion, globalVersion]`, or null when they cannot be read (then do not trust a cache). */
  async read(userId: string): Promise<[string, string] | null> {
    const values = await this.counters.read([userKey(userId), GLOBAL_KEY]);
    return values ? [values[0], values[1]] : null;
  }

  bumpUser(userId: string): Promise<void> {
    return this.counters.bump(userKey(userId));
  }

  bumpGlobal(): Promise<void> {
    return this.counters.bump(GLOBAL_KEY);
  }
}
