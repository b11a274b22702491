import { Command, CommandRunner } from 'nest-commander';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { appliedMigrations } from '../infra/database/migration-status.js';
import { createStandaloneDataSource } from '../infra/database/standalone-data-source.js';

/** Runs `work` on a data source of its own that never runs migrations by itself. */
async function withDataSource<T>(config: AppConfig, work: (dataSource: DataSource) => Promise<T>): Promise<T> {
  const dataSource = await createStandaloneDataSource(config);
  try {
    await dataSource.initialize();
    return await work(dataSource);
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
  }
}

@Command({ name: 'migrate', description: 'Apply the pending migrations, each in its own transaction, and name them' })
export class MigrateCommand extends CommandRunner {
  constructor(private readonly config: AppConfig) {
    super();
  }

  async run(): Promise<void> {
    const applied = await withDataSource(this.config, (dataSource) =>
      dataSource.runMigrations({ transaction: 'each' }),
    );
    if (applied.length === 0) {
      process.stdout.write('No pending migrations: the schema is up to date.\n');
      return;
    }
    for (const migration of applied) process.stdout.write(`Applied ${migration.name}\n`);
    process.stdout.write(`${applied.length} migration(s) applied.\n`);
  }
}

@Command({ name: 'migrate:status', description: 'List the migrations, applied [x] or pending [ ]' })
export class MigrateStatusCommand extends CommandRunner {
  constructor(private readonly config: AppConfig) {
    super();
  }

  async run(): Promise<void> {
    const { names, applied } = await withDataSource(this.config, async (dataSource) => ({
      names: dataSource.migrations.map((migration) => migration.name ?? migration.constructor.name),
      applied: await appliedMigrations(dataSource),
    }));
    for (const name of names) process.stdout.write(`[${applied.has(name) ? 'x' : ' '}] ${name}\n`);
    const pending = names.filter((name) => !applied.has(name)).length;
    process.stdout.write(
      pending === 0
        ? `All ${names.length} migrations applied.\n`
        : `${pending} of ${names.length} migrations pending.\n`,
    );
  }
}
