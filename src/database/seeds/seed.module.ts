import { Injectable, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { PasswordModule } from '../../auth/password.module.js';
import { printGeneratedPasswords } from './seed-report.js';
import { SeedService } from './seed.service.js';

@Module({
  imports: [PasswordModule],
  providers: [SeedService],
  exports: [SeedService],
})
export class SeedModule {}

/** The first start on an empty database seeds it, so a bare `npm start` is usable at once. */
@Injectable()
export class FirstStartSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger('Seed');

  constructor(private readonly seeds: SeedService) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!(await this.seeds.isEmpty())) return;
    this.logger.log('Empty database: seeding the default roles, permissions and accounts');
    printGeneratedPasswords(await this.seeds.run());
  }
}
