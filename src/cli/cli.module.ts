import { Module } from '@nestjs/common';
import { AccountRecoveryModule } from '../account/account-recovery.module.js';
import { AppConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { SeedModule } from '../database/seeds/seed.module.js';
import { ServiceClientsModule } from '../introspection/introspection.module.js';
import { RevokeSessionsCommand, ResetSecondFactorCommand } from './account-recovery.commands.js';
import { CreateClientCommand } from './create-client.command.js';
import { RotateKeysCommand } from './rotate-keys.command.js';
import { SeedCommand } from './seed.command.js';

@Module({
  imports: [AppConfigModule, DatabaseModule, SeedModule, ServiceClientsModule, AccountRecoveryModule],
  providers: [SeedCommand, RotateKeysCommand, CreateClientCommand, RevokeSessionsCommand, ResetSecondFactorCommand],
})
export class CliModule {}
