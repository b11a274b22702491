import { Module } from '@nestjs/common';
import { LoginFailuresRepository } from './login-failures.repository.js';
import { LoginLockout } from './login-lockout.service.js';

/** The account lockout, shared by the password login, the second factor and re-authentication. */
@Module({
  providers: [LoginLockout, LoginFailuresRepository],
  exports: [LoginLockout],
})
export class LockoutModule {}
