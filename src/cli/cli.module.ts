import { Module } from '@nestjs/common';
import { AppConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { SeedModule } from '../database/seeds/seed.module.js';
import { SeedCommand } from './seed.command.js';

@Module({
  imports: [AppConfigModule, DatabaseModule, SeedModule],
  providers: [SeedCommand],
})
export class CliModule {}
