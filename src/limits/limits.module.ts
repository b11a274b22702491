import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { getOptionsToken, getStorageToken } from '@nestjs/throttler';
import { AppConfig } from '../config/app-config.js';
import { AdminListConcurrencyInterceptor } from './admin-list-concurrency.interceptor.js';
import { RateLimitStorage } from './rate-limit-storage.js';
import { RateLimitStorageModule } from './rate-limit-storage.module.js';
import { rateLimitOptions } from './rate-limit.guard.js';

/**
 * Rate limits (the throttler's options and storage, for RateLimitGuard, which AppModule registers
 * as the first global guard) and the cap on a caller's concurrent admin list requests.
 */
@Module({
  imports: [RateLimitStorageModule],
  providers: [
    { provide: getOptionsToken(), inject: [AppConfig], useFactory: rateLimitOptions },
    { provide: getStorageToken(), useExisting: RateLimitStorage },
    { provide: APP_INTERCEPTOR, useClass: AdminListConcurrencyInterceptor },
  ],
  exports: [getOptionsToken(), getStorageToken()],
})
export class LimitsModule {}
