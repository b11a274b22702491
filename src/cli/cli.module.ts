import { Module } from '@nestjs/common';
import { AppConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { SeedModule } from '../database/seeds/seed.module.js';
import { ServiceClientsModule } from '../introspection/introspection.module.js';
import { CreateClientCommand } from './create-client.command.js';
import { RotateKeysCommand } from './rotate-keys.command.js';
import { SeedCommand } from './seed.command.js';

@Module({
  imports: [AppConfigModule, DatabaseModule, SeedModule, ServiceClientsModule],
  providers: [SeedCommand, RotateKeysCommand, CreateClientCommand],
})
export class CliModule {}
