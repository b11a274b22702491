import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options.js';
import { createTestDatabase, type TestDatabase } from './databases.mjs';

/** A data source on `url` with the service's own options, migrations not run. */
export function testDataSource(url: string): DataSource {
  return new DataSource(buildDataSourceOptions({ url, poolSize: 4, connectTimeoutMs: 5000, migrationsRun: false }));
}

/** The run's shared, migrated and seeded database. */
export function sharedDataSource(): DataSource {
  return testDataSource(process.env.TEST_DATABASE_URL!);
}

/** Runs `work` against a new, empty database of the run's kind, then drops it. */
export async function withEmptyDatabase<T>(
  work: (dataSource: DataSource, database: TestDatabase) => Promise<T>,
): Promise<T> {
  const database = await createTestDatabase(process.env.TEST_SERVER_URL || undefined, 'auth_scratch');
  const dataSource = testDataSource(database.url);
  try {
    await dataSource.initialize();
    return await work(dataSource, database);
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await database.drop();
  }
}
