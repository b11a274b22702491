import { RolesModule } from '../core/roles/roles.module.js';
import { Module } from '@nestjs/common';
import { AccountRecoveryModule } from '../account/account-recovery.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { PasswordModule } from '../core/passwords/password.module.js';
import { AppConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { SeedModule } from '../core/seeds/seed.module.js';
import { ServiceClientsModule } from '../introspection/introspection.module.js';
import { RevokeSessionsCommand, ResetSecondFactorCommand } from './account-recovery.commands.js';
import { RbacCoreModule } from '../core/principal/rbac-core.module.js';
import { RedisModule } from '../redis/redis.module.js';
import { UsersModule } from '../core/users/users.module.js';
import {
  AssignRoleCommand,
  CreateAdminCommand,
  DisableUserCommand,
  EnableUserCommand,
  ListRolesCommand,
} from './account.commands.js';
import { UserDisablingModule } from '../users/user-disabling.module.js';
import { AdminAccountsService } from './admin-accounts.service.js';
import { CreateClientCommand } from './create-client.command.js';
import { MigrateCommand, MigrateStatusCommand } from './migration.commands.js';
import { RotateKeysCommand } from './rotate-keys.command.js';
import { SeedCommand } from './seed.command.js';

@Module({
  imports: [
    AppConfigModule,
    RolesModule,
    DatabaseModule,
    SeedModule,
    ServiceClientsModule,
    AccountRecoveryModule,
    RedisModule,
    AuditModule,
    PasswordModule,
    UsersModule,
    RbacCoreModule,
    UserDisablingModule,
  ],
  providers: [
    SeedCommand,
    RotateKeysCommand,
    CreateClientCommand,
    RevokeSessionsCommand,
    ResetSecondFactorCommand,
    AdminAccountsService,
    CreateAdminCommand,
    AssignRoleCommand,
    ListRolesCommand,
    DisableUserCommand,
    EnableUserCommand,
  ],
})
export class CliModule {}

/**
 * The migration commands alone, without DatabaseModule: its data source would apply pending
 * migrations on connect (DB_MIGRATIONS_RUN), before `migrate:status` could report them.
 */
@Module({
  imports: [AppConfigModule],
  providers: [MigrateCommand, MigrateStatusCommand],
})
export class MigrationCliModule {}

/** Commands served by MigrationCliModule; every other one by CliModule. */
export const MIGRATION_COMMANDS = new Set(['migrate', 'migrate:status']);
