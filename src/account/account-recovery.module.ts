import { Module } from '@nestjs/common';
import { AuditLog } from '../audit/audit-log.service.js';
import { AuthRepositoriesModule } from '../auth/auth-repositories.module.js';
import { RbacCoreModule } from '../rbac/rbac-core.module.js';
import { RedisModule } from '../redis/redis.module.js';
import { UsersModule } from '../users/users.module.js';
import { AccountRecoveryService } from './account-recovery.service.js';
import { SecondFactorModule } from './second-factor.module.js';

/** What the command line needs to help a locked-out account; no HTTP layer. */
@Module({
  imports: [UsersModule, AuthRepositoriesModule, SecondFactorModule, RbacCoreModule, RedisModule],
  // AuditLog alone, not AuditModule: a command must not start the audit retention's timers.
  providers: [AccountRecoveryService, AuditLog],
  exports: [AccountRecoveryService],
})
export class AccountRecoveryModule {}
