import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config.js';
import { buildDataSourceOptions } from './data-source-options.js';
import { openDatabaseEndpoint } from './database-endpoint.js';

/**
 * A data source outside the Nest application (the migration CLI): the same endpoint and options
 * as the service; destroying it also stops the embedded database, if one was started.
 */
export async function createStandaloneDataSource(config: AppConfig): Promise<DataSource> {
  const endpoint = await openDatabaseEndpoint(config);
  const dataSource = new DataSource(
    buildDataSourceOptions({
      url: endpoint.url,
      poolSize: 2,
      connectTimeoutMs: config.database.connectTimeoutMs,
      migrationsRun: false,
    }),
  );
  const destroy = dataSource.destroy.bind(dataSource);
  dataSource.destroy = async () => {
    try {
      await destroy();
    } finally {
      await endpoint.stop();
    }
  };
  return dataSource;
}
