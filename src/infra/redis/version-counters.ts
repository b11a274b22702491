import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AppConfig } from '../../config/app-config.js';
import { DatabaseEndpoint } from '../database/database-endpoint.js';
import { REDIS, type RedisClient } from './redis-client.js';

/**
 * Named counters that tell every instance when something it caches is stale: each change bumps
 * its counter after it commits, and a cached value is trusted only while the counters it was
 * loaded under are unchanged.
 *
 * - With REDIS_URL, the counters live in Redis and every instance reads them (one round trip).
 *   Redis may lose them (FLUSHDB, a restart without persistence, a failover): a counter bumped
 *   before and after the loss could read the same again. So every value read is scoped by an
 *   epoch, a random key created with SET NX when missing and read in the same MGET: after a
 *   loss the epoch is new, and nothing cached before it is trusted.
 * - With the embedded database, one process owns the data, so in-process counters are exact;
 *   likewise on a PostgreSQL server with SINGLE_INSTANCE=true, where every change is made by this
 *   process (each write path bumps its counter after its commit).
 * - With a PostgreSQL server, no Redis and possibly several instances, there is nowhere cheap to
 *   share them: `enabled` is false and callers read PostgreSQL every time.
 */
export abstract class VersionCounters {
  abstract readonly enabled: boolean;
  /** The counters' current values, or null when they cannot be read (then trust no cache). */
  abstract read(keys: readonly string[]): Promise<string[] | null>;
  abstract bump(key: string): Promise<void>;
}

/** The key of the current epoch of every counter (see RedisVersionCounters.read). */
export const EPOCH_KEY = 'versions:epoch';

@Injectable()
export class RedisVersionCounters extends VersionCounters {
  readonly enabled = true;
  private readonly logger = new Logger('VersionCounters');

  constructor(private readonly redis: NonNullable<RedisClient>) {
    super();
  }

  async read(keys: readonly string[]): Promise<string[] | null> {
    try {
      const [epoch, ...values] = await this.redis.mget(EPOCH_KEY, ...keys);
      const current = epoch ?? (await this.startEpoch());
      return values.map((value) => `${current}:${value ?? '0'}`);
    } catch {
      return null;
    }
  }

  /**
   * The epoch is missing: Redis is new or lost its data. Of concurrent starters (on every
   * instance) one SET NX wins, and all read the winner. Counters bumped meanwhile keep their
   * values; what matters is that no entry cached under the old epoch matches.
   */
  private async startEpoch(): Promise<string> {
    await this.redis.set(EPOCH_KEY, randomBytes(12).toString('base64url'), 'NX');
    const epoch = await this.redis.get(EPOCH_KEY);
    if (epoch === null) throw new Error('The version epoch vanished as it was created');
    return epoch;
  }

  async bump(key: string): Promise<void> {
    try {
      await this.redis.incr(key);
    } catch (error) {
      // The change is committed in PostgreSQL; other instances may serve a stale cached value
      // until their cache entry ages out (each cache bounds the age of its entries).
      this.logger.error(`Could not publish a change (${key}): ${(error as Error).message}`);
    }
  }
}

export class InProcessVersionCounters extends VersionCounters {
  readonly enabled = true;
  private readonly counters = new Map<string, number>();

  async read(keys: readonly string[]): Promise<string[]> {
    return keys.map((key) => String(this.counters.get(key) ?? 0));
  }

  async bump(key: string): Promise<void> {
    this.counters.set(key, (this.counters.get(key) ?? 0) + 1);
  }
}

export class DisabledVersionCounters extends VersionCounters {
  readonly enabled = false;

  async read(): Promise<null> {
    return null;
  }

  async bump(): Promise<void> {}
}

export const versionCountersProvider = {
  provide: VersionCounters,
  inject: [REDIS, DatabaseEndpoint, AppConfig],
  useFactory: (redis: RedisClient, endpoint: DatabaseEndpoint, config: AppConfig): VersionCounters => {
    if (redis) return new RedisVersionCounters(redis);
    if (endpoint.embedded || config.singleInstance) return new InProcessVersionCounters();
    return new DisabledVersionCounters();
  },
};
