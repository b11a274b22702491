import { Command, CommandRunner } from 'nest-commander';
import { AppConfig } from '../config/app-config.js';
import { reportGeneratedPasswords, SeedService } from '../rbac/index.js';

@Command({ name: 'seed', description: 'Seed the default roles, permissions and accounts (idempotent)' })
export class SeedCommand extends CommandRunner {
  constructor(
    private readonly seeds: SeedService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async run(): Promise<void> {
    const report = await this.seeds.run();
    reportGeneratedPasswords(report, this.config.database);
    process.stdout.write(
      `Seeding done: ${report.permissionsCreated} permissions, ${report.rolesCreated} roles, ` +
        `${report.adminLinksCreated} admin links and ${report.accountsCreated.length} accounts created` +
        (report.accountsSkipped.length
          ? `; existing accounts left as they are: ${report.accountsSkipped.join(', ')}`
          : '') +
        '.\n',
    );
  }
}
