import { Module } from '@nestjs/common';
import { getOptionsToken, getStorageToken } from '@nestjs/throttler';
import { AppConfig } from '../config/app-config.js';
import { LoginLockout } from './login-lockout.service.js';
import { RateLimitStorage } from './rate-limit-storage.js';
import { rateLimitOptions } from './rate-limit.guard.js';

/**
 * Rate limits (the throttler's options and storage, for RateLimitGuard, which AppModule registers
 * as the first global guard) and the account lockout (for the password login).
 */
@Module({
  providers: [
    { provide: getOptionsToken(), inject: [AppConfig], useFactory: rateLimitOptions },
    RateLimitStorage,
    { provide: getStorageToken(), useExisting: RateLimitStorage },
    LoginLockout,
  ],
  exports: [getOptionsToken(), getStorageToken(), LoginLockout],
})
export class LimitsModule {}
