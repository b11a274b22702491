import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { AppConfig } from '../../config/app-config.js';

/** The shared Redis connection, or null when REDIS_URL is unset (single-instance state in process). */
export const REDIS = Symbol('REDIS');

export type RedisClient = Redis | null;

/** ioredis is loaded only when REDIS_URL is set. */
export async function createRedis(config: AppConfig): Promise<RedisClient> {
  if (!config.redisUrl) return null;
  const { Redis } = await import('ioredis');
  const logger = new Logger('Redis');
  const client = new Redis(config.redisUrl, {
    // Fail fast instead of queueing: every caller has a PostgreSQL fallback.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    lazyConnect: false,
  });
  let lastError = '';
  client.on('error', (error: Error) => {
    if (error.message !== lastError) logger.warn(`Redis unavailable: ${error.message}`);
    lastError = error.message;
  });
  client.on('ready', () => {
    lastError = '';
  });
  return client;
}
