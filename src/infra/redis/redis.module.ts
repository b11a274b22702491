import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { createRedis, REDIS, type RedisClient } from './redis-client.js';
import { RateLimitStorage } from './rate-limit-storage.js';
import { versionCountersProvider } from './version-counters.js';

@Injectable()
class RedisShutdown implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  onApplicationShutdown(): void {
    this.redis?.disconnect();
  }
}

/**
 * Global: the client, the version counters of the caches, and the one counter storage of every
 * limit (Redis when REDIS_URL is set, in process otherwise): the throttler guard's, the clients'
 * and the outbox's per-recipient limit.
 */
@Global()
@Module({
  providers: [
    { provide: REDIS, inject: [AppConfig], useFactory: createRedis },
    RedisShutdown,
    versionCountersProvider,
    RateLimitStorage,
  ],
  exports: [REDIS, versionCountersProvider, RateLimitStorage],
})
export class RedisModule {}

export { REDIS, type RedisClient };
