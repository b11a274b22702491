import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { reportGeneratedPasswords } from './seed-report.js';
import { SeedService } from './seed.service.js';

/** The first start on an empty database seeds it, so a bare `npm start` is usable at once. */
@Injectable()
export class FirstStartSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger('Seed');

  constructor(
    private readonly seeds: SeedService,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!(await this.seeds.isEmpty())) return;
    this.logger.log('Empty database: seeding the default roles, permissions and accounts');
    reportGeneratedPasswords(await this.seeds.run(), this.config.database);
  }
}
