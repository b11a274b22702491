import { Module, type Provider, type Type } from '@nestjs/common';
import { AccountModule } from '../account/index.js';
import { AuditModule } from '../audit/index.js';
import { IdentityModule } from '../identity/index.js';
import { AppConfigModule } from '../config/config.module.js';
import { KeysModule } from '../infra/keys/index.js';
import { MessagingModule } from '../infra/messaging/messaging.module.js';
import { SecondFactorModule } from '../second-factor/index.js';
import { DatabaseModule } from '../infra/database/database.module.js';
import { ClientsModule } from '../clients/index.js';
import { OidcModule } from '../oidc/index.js';
import { ProviderModule } from '../provider/index.js';
import { UpstreamModule } from '../upstream/index.js';
import { RevokeSessionsCommand, ResetSecondFactorCommand } from './account-recovery.commands.js';
import { RbacModule } from '../rbac/index.js';
import { RedisModule } from '../infra/redis/redis.module.js';
import {
  AssignRoleCommand,
  CreateAdminCommand,
  DisableUserCommand,
  EnableUserCommand,
  ListRolesCommand,
} from './account.commands.js';
import { UsersModule } from '../users/index.js';
import { AdminAccountsService } from './admin-accounts.service.js';
import { CreateClientCommand } from './create-client.command.js';
import { AssignClientRoleCommand } from './assign-client-role.command.js';
import { MigrateCommand, MigrateStatusCommand } from './migration.commands.js';
import { PermissionsExportCommand } from './permissions-export.command.js';
import { RotateKeysCommand } from './rotate-keys.command.js';
import { RotateDataKeyCommand } from './rotate-data-key.command.js';
import { SeedCommand } from './seed.command.js';
import { AddMemberCommand, CreateOrganizationCommand } from './organization.commands.js';
import { OrganizationsModule } from '../organizations/index.js';

/**
 * The commands on the database (CliModule): a new command is added here, and so appears in
 * `--help` too (CliHelpModule).
 */
const DATABASE_COMMANDS: Type[] = [
  SeedCommand,
  RotateKeysCommand,
  RotateDataKeyCommand,
  CreateClientCommand,
  AssignClientRoleCommand,
  RevokeSessionsCommand,
  ResetSecondFactorCommand,
  CreateAdminCommand,
  AssignRoleCommand,
  ListRolesCommand,
  PermissionsExportCommand,
  DisableUserCommand,
  EnableUserCommand,
  CreateOrganizationCommand,
  AddMemberCommand,
];

/** The migration commands (MigrationCliModule). */
const MIGRATION_COMMAND_CLASSES: Type[] = [MigrateCommand, MigrateStatusCommand];

@Module({
  imports: [
    AppConfigModule,
    KeysModule,
    DatabaseModule,
    RedisModule,
    AuditModule,
    IdentityModule,
    RbacModule,
    OidcModule,
    ProviderModule,
    UpstreamModule,
    ClientsModule,
    AccountModule,
    UsersModule,
    SecondFactorModule,
    MessagingModule,
    OrganizationsModule,
  ],
  providers: [AdminAccountsService, ...DATABASE_COMMANDS],
})
export class CliModule {}

/**
 * The migration commands alone, without DatabaseModule: its data source would apply pending
 * migrations on connect (DB_MIGRATIONS_RUN), before `migrate:status` could report them.
 */
@Module({
  imports: [AppConfigModule],
  providers: MIGRATION_COMMAND_CLASSES,
})
export class MigrationCliModule {}

/** Commands served by MigrationCliModule; every other one by CliModule. */
export const MIGRATION_COMMANDS = new Set(['migrate', 'migrate:status']);

/**
 * For `--help`, `--version` and `help`: every command's name, arguments, options and description
 * (read from its decorators) with nothing behind them, so that listing the commands reads no
 * configuration and opens no database. A stand-in is an object of the command's class, never run.
 */
@Module({
  providers: [...DATABASE_COMMANDS, ...MIGRATION_COMMAND_CLASSES].map((command): Provider => ({
    provide: command,
    useFactory: () => Object.create(command.prototype) as object,
  })),
})
export class CliHelpModule {}
