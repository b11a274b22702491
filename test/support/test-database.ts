import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/infra/database/data-source-options.js';
import type { Template, TestDatabase } from './databases.mjs';

export type { Template, TestDatabase };

/** What the environment of the e2e and medium projects (database-environment.mjs) offers each test file. */
interface TestDatabases {
  file(): Promise<TestDatabase>;
  create(template: Template): Promise<TestDatabase>;
}

function testDatabases(): TestDatabases {
  const databases = (globalThis as { testDatabases?: TestDatabases }).testDatabases;
  if (!databases)
    throw new Error('Databases exist only in the e2e and medium projects (their environment makes them).');
  return databases;
}

/**
 * The test file's own database, a copy of the run's migrated and seeded template made on the
 * file's first call; every app and data source of the file uses it unless told otherwise. It is
 * dropped after the file.
 */
export function fileDatabase(): Promise<TestDatabase> {
  return testDatabases().file();
}

/**
 * Another database for this test file alone, a copy of `template`, for tests that need a state
 * the file's database no longer has (no rows at all, settings never changed). Dropped after the
 * file, or earlier by its `drop`.
 */
export function createDatabase(template: Template = 'seeded'): Promise<TestDatabase> {
  return testDatabases().create(template);
}

/**
 * A data source on `url` with the service's own options for a `DATABASE_URL` (a pool of `poolSize`
 * connections), migrations not run:
 * its hot statements are prepared under a name where the server gives each connection its own
 * session (not on the embedded runs' PGlite, which `queryNamed` recognises).
 */
export function testDataSource(url: string, poolSize = 4): DataSource {
  return new DataSource(
    buildDataSourceOptions({
      url,
      poolSize,
      connectTimeoutMs: 5000,
      migrationsRun: false,
      namedStatements: true,
    }),
  );
}

/** Runs `work` against a new database made from `template`, then drops it. */
export async function withDatabase<T>(
  template: Template,
  work: (dataSource: DataSource, database: TestDatabase) => Promise<T>,
): Promise<T> {
  const database = await createDatabase(template);
  const dataSource = testDataSource(database.url);
  try {
    await dataSource.initialize();
    return await work(dataSource, database);
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await database.drop();
  }
}
