import { Module } from '@nestjs/common';
import { getOptionsToken, getStorageToken } from '@nestjs/throttler';
import { AppConfig } from '../config/app-config.js';
import { RateLimitStorage } from '../infra/redis/rate-limit-storage.js';
import { rateLimitOptions } from './rate-limit.guard.js';

/** The throttler's options and storage, for RateLimitGuard (registered by AppModule). */
@Module({
  providers: [
    { provide: getOptionsToken(), inject: [AppConfig], useFactory: rateLimitOptions },
    { provide: getStorageToken(), useExisting: RateLimitStorage },
  ],
  exports: [getOptionsToken(), getStorageToken()],
})
export class LimitsModule {}
