import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { PasswordHasher } from '../../dist/src/identity/password-hasher.js';
import { buildAppConfig } from '../../dist/src/config/app-config.js';
import { parseEnvironment } from '../../dist/src/config/environment.js';
import { buildDataSourceOptions } from '../../dist/src/infra/database/data-source-options.js';
import { SeedService } from '../../dist/src/rbac/seeds/seed.service.js';
import { prepareTemplates } from './databases.mjs';
import { startTestRedis } from './redis-server.mjs';

/**
 * Migrates and seeds the run's template databases once; every test file then works on copies of
 * its own (see database-environment.mjs), so no file sees another's rows or settings and their
 * order never matters. Workers inherit the variables set here.
 */
export default async function globalSetup() {
  // Workers inherit TEST_REDIS_URL: the given one, or that of the redis-server started here.
  const redis = await startTestRedis();
  globalThis.testRedis = redis;
  process.env.TEST_REDIS_URL = redis.url;
  const serverUrl = process.env.DATABASE_URL || undefined;
  const config = buildAppConfig(
    parseEnvironment({
      APP_ENV: 'test',
      JWT_SECRET: 'x'.repeat(32),
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_ITERATIONS: '1',
    }),
  );
  const run = await prepareTemplates(serverUrl, async (url, template) => {
    const dataSource = new DataSource(
      buildDataSourceOptions({ url, poolSize: 2, connectTimeoutMs: 5000, migrationsRun: false }),
    );
    await dataSource.initialize();
    try {
      if (template === 'migrated') await dataSource.runMigrations({ transaction: 'each' });
      else await new SeedService(dataSource, config, new PasswordHasher(config)).run();
    } finally {
      await dataSource.destroy();
    }
  });
  globalThis.testRun = run;
  Object.assign(process.env, run);

  process.stdout.write(
    `\nTest databases: ${
      serverUrl ? `copies of a migrated template on ${serverUrl}` : 'embedded, copies of a migrated data folder'
    }\n`,
  );
}
