import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { PasswordHasher } from '../../dist/src/core/passwords/password-hasher.js';
import { buildAppConfig } from '../../dist/src/config/app-config.js';
import { parseEnvironment } from '../../dist/src/config/environment.js';
import { buildDataSourceOptions } from '../../dist/src/database/data-source-options.js';
import { SeedService } from '../../dist/src/core/seeds/seed.service.js';
import { createTestDatabase } from './databases.mjs';

/**
 * One database for the run, migrated and seeded once; test files share it and make their own
 * rows, so their order never matters. Workers inherit the environment set here.
 */
export default async function globalSetup() {
  const serverUrl = process.env.DATABASE_URL || undefined;
  const database = await createTestDatabase(serverUrl);
  globalThis.testDatabase = database;
  process.env.TEST_SERVER_URL = serverUrl ?? '';
  process.env.TEST_DATABASE_URL = database.url;
  process.env.TEST_DATABASE_KIND = database.kind;

  const config = buildAppConfig(
    parseEnvironment({
      APP_ENV: 'test',
      JWT_SECRET: 'x'.repeat(32),
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_ITERATIONS: '1',
    }),
  );
  const dataSource = new DataSource(
    buildDataSourceOptions({ url: database.url, poolSize: 2, connectTimeoutMs: 5000, migrationsRun: false }),
  );
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    await new SeedService(dataSource, config, new PasswordHasher(config)).run();
  } finally {
    await dataSource.destroy();
  }
  process.stdout.write(
    `\nTest database: ${database.kind === 'server' ? `new database on ${serverUrl}` : 'embedded, in memory'}\n`,
  );
}
