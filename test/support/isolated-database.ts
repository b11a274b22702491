import { PasswordHasher } from '../../src/core/passwords/password-hasher.js';
import { SeedService } from '../../src/core/seeds/seed.service.js';
import { createTestDatabase, type TestDatabase } from './databases.mjs';
import { createTestConfig } from './test-config.js';
import { testDataSource } from './test-database.js';

/**
 * A database of the run's kind for one test file alone, migrated (and seeded when asked), for
 * tests that change global state such as the login-method settings: flipping them on the run's
 * shared database would change how logins behave for test files running in parallel.
 */
export async function createIsolatedDatabase(options: { seed: boolean }): Promise<TestDatabase> {
  const database = await createTestDatabase(process.env.TEST_SERVER_URL || undefined, 'auth_isolated');
  const dataSource = testDataSource(database.url);
  try {
    try {
      await dataSource.initialize();
      await dataSource.runMigrations({ transaction: 'each' });
      if (options.seed) {
        const config = createTestConfig({ DATABASE_URL: database.url });
        await new SeedService(dataSource, config, new PasswordHasher(config)).run();
      }
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
    }
  } catch (error) {
    await database.drop();
    throw error;
  }
  return database;
}
