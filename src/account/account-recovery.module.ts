import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../core/audit/audit-core.module.js';
import { AuthRepositoriesModule } from '../core/sessions/auth-repositories.module.js';
import { RbacCoreModule } from '../core/principal/rbac-core.module.js';
import { RedisModule } from '../redis/redis.module.js';
import { UsersModule } from '../core/users/users.module.js';
import { AccountRecoveryService } from './account-recovery.service.js';
import { SecondFactorModule } from '../core/second-factor/second-factor.module.js';

/** What the command line needs to help a locked-out account; no HTTP layer. */
@Module({
  // The audit writer alone, not AuditModule: a command must not start the audit retention's timers.
  imports: [UsersModule, AuthRepositoriesModule, SecondFactorModule, RbacCoreModule, RedisModule, AuditCoreModule],
  providers: [AccountRecoveryService],
  exports: [AccountRecoveryService],
})
export class AccountRecoveryModule {}
