import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { REDIS, type RedisClient } from './redis-client.js';

/** What the throttler guard needs to know about one hit (times in seconds, as the guard expects). */
export interface RateLimitRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/**
 * One hit on a fixed window, atomically: count it unless the key is blocked; past the limit,
 * block the key for the block duration and start the next window afresh after it (as the
 * throttler's in-process storage does). Both keys share a hash tag, so this also runs on a cluster.
 *
 * KEYS: hits, block. ARGV: window ms, limit, block ms. Returns {hits, window ms left, blocked, block ms left}.
 */
const HIT_SCRIPT = `
local blockLeft = redis.call('PTTL', KEYS[2])
if blockLeft > 0 then
  return {tonumber(ARGV[2]) + 1, blockLeft, 1, blockLeft}
end
local hits = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
if hits > tonumber(ARGV[2]) then
  local block = tonumber(ARGV[3])
  if block <= 0 then
    return {hits, left, 1, left}
  end
  redis.call('SET', KEYS[2], '1', 'PX', block)
  redis.call('DEL', KEYS[1])
  return {hits, left, 1, block}
end
return {hits, left, 0, 0}
`;
const HIT_SCRIPT_SHA = createHash('sha1').update(HIT_SCRIPT).digest('hex');

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/** Counters in Redis, so a limit holds across every instance that shares it. */
export class RedisRateLimitStorage implements ThrottlerStorage {
  constructor(private readonly redis: Redis) {}

  async increment(key: string, ttl: number, limit: number, blockDuration: number): Promise<RateLimitRecord> {
    // Redis holds the key's SHA-256 digest, never the address or the email in it.
    const digest = createHash('sha256').update(key).digest('hex');
    const keys = [`ratelimit:{${digest}}:hits`, `ratelimit:{${digest}}:block`];
    const args = [ttl, limit, blockDuration];
    let reply: unknown;
    try {
      reply = await this.redis.evalsha(HIT_SCRIPT_SHA, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
      reply = await this.redis.eval(HIT_SCRIPT, keys.length, ...keys, ...args);
    }
    const [hits, windowLeft, blocked, blockLeft] = (reply as number[]).map(Number);
    return {
      totalHits: hits,
      timeToExpire: seconds(windowLeft),
      isBlocked: blocked === 1,
      timeToBlockExpire: seconds(blockLeft),
    };
  }
}

interface WindowCounter {
  hits: number;
  windowEndsAt: number;
  blockedUntil: number;
}

/** How often counters whose window and block are both over are dropped. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Counters in this process, on the same fixed windows as HIT_SCRIPT, so a limit means the same
 * with or without Redis. A hit costs one map lookup: the throttler's own in-process storage keeps
 * every hit's expiry in an array that it filters on each hit, which at a few thousand requests a
 * second made every request copy arrays of a hundred thousand entries and held them in memory.
 */
export class LocalRateLimitStorage implements ThrottlerStorage {
  private readonly counters = new Map<string, WindowCounter>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  increment(key: string, ttl: number, limit: number, blockDuration: number): Promise<RateLimitRecord> {
    const now = this.now();
    let counter = this.counters.get(key);
    if (counter && counter.blockedUntil > now) {
      const left = counter.blockedUntil - now;
      return Promise.resolve({
        totalHits: limit + 1,
        timeToExpire: seconds(left),
        isBlocked: true,
        timeToBlockExpire: seconds(left),
      });
    }
    if (!counter || counter.windowEndsAt <= now) {
      counter = { hits: 0, windowEndsAt: now + ttl, blockedUntil: 0 };
      this.counters.set(key, counter);
    }
    counter.hits += 1;
    const windowLeft = counter.windowEndsAt - now;
    if (counter.hits <= limit) {
      return Promise.resolve({
        totalHits: counter.hits,
        timeToExpire: seconds(windowLeft),
        isBlocked: false,
        timeToBlockExpire: 0,
      });
    }
    if (blockDuration <= 0) {
      return Promise.resolve({
        totalHits: counter.hits,
        timeToExpire: seconds(windowLeft),
        isBlocked: true,
        timeToBlockExpire: seconds(windowLeft),
      });
    }
    // Blocked: the next window starts afresh once the block is over.
    const hits = counter.hits;
    counter.hits = 0;
    counter.windowEndsAt = now;
    counter.blockedUntil = now + blockDuration;
    return Promise.resolve({
      totalHits: hits,
      timeToExpire: seconds(windowLeft),
      isBlocked: true,
      timeToBlockExpire: seconds(blockDuration),
    });
  }

  /** Drops the counters whose window and block are both over: they would start afresh anyway. */
  sweep(): void {
    const now = this.now();
    for (const [key, counter] of this.counters) {
      if (counter.windowEndsAt <= now && counter.blockedUntil <= now) this.counters.delete(key);
    }
  }

  get size(): number {
    return this.counters.size;
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}

/** How long a hit may wait for Redis before the in-process counters answer instead. */
export const REDIS_HIT_TIMEOUT_MS = 1000;
/** After a failure, Redis is left alone this long, so an outage does not slow every request. */
const REDIS_RETRY_AFTER_MS = 5000;

/**
 * The storage behind the throttler guard: Redis when REDIS_URL is set, in process otherwise.
 * When Redis fails, that request is counted in process instead: the limits then hold per instance
 * (neither open nor a failed request), and a warning is logged once per outage. Redis is tried
 * again a few seconds later.
 */
@Injectable()
export class RateLimitStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimits');
  private readonly local = new LocalRateLimitStorage();
  private readonly shared: RedisRateLimitStorage | null;
  private degraded = false;
  private skipSharedUntil = 0;

  constructor(@Inject(REDIS) redis: RedisClient) {
    this.shared = redis ? new RedisRateLimitStorage(redis) : null;
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number): Promise<RateLimitRecord> {
    if (!this.shared || Date.now() < this.skipSharedUntil) {
      return this.local.increment(key, ttl, limit, blockDuration);
    }
    try {
      const record = await withTimeout(this.shared.increment(key, ttl, limit, blockDuration), REDIS_HIT_TIMEOUT_MS);
      if (this.degraded) {
        this.degraded = false;
        this.logger.log('Redis answers again: rate limits are shared across instances again.');
      }
      return record;
    } catch (error) {
      this.skipSharedUntil = Date.now() + REDIS_RETRY_AFTER_MS;
      if (!this.degraded) {
        this.degraded = true;
        this.logger.warn(
          `Redis unavailable for rate limits (${(error as Error).message}); counting in this process until it is back.`,
        );
      }
      return this.local.increment(key, ttl, limit, blockDuration);
    }
  }

  onApplicationShutdown(): void {
    this.local.close();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
