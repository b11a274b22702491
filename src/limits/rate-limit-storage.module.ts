import { Module } from '@nestjs/common';
import { RateLimitStorage } from './rate-limit-storage.js';

/**
 * The one counter storage of every limit (Redis when REDIS_URL is set, in process otherwise): the
 * throttler guard's, and the outbox's per-recipient limit.
 */
@Module({ providers: [RateLimitStorage], exports: [RateLimitStorage] })
export class RateLimitStorageModule {}
