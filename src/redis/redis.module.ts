import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { createRedis, REDIS, type RedisClient } from './redis-client.js';
import { versionCountersProvider } from './version-counters.js';

@Injectable()
class RedisShutdown implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  onApplicationShutdown(): void {
    this.redis?.disconnect();
  }
}

@Global()
@Module({
  providers: [{ provide: REDIS, inject: [AppConfig], useFactory: createRedis }, RedisShutdown, versionCountersProvider],
  exports: [REDIS, versionCountersProvider],
})
export class RedisModule {}

export { REDIS, type RedisClient };
