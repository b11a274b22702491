import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../../config/app-config.js';
import { buildDataSourceOptions } from './data-source-options.js';
import { DatabaseEndpoint, DatabaseEndpointShutdown, openDatabaseEndpoint } from './database-endpoint.js';
import { DatabasePool } from './database-pool.js';
import { Transactions } from './transactions.js';

@Module({
  providers: [
    { provide: DatabaseEndpoint, inject: [AppConfig], useFactory: openDatabaseEndpoint },
    DatabaseEndpointShutdown,
  ],
  exports: [DatabaseEndpoint],
})
class DatabaseEndpointModule {}

/**
 * Global so that features can ask whether the database is embedded (one process owns it), and so
 * that services find Transactions (and the metrics the pool) wherever they are.
 */
@Global()
@Module({
  imports: [
    DatabaseEndpointModule,
    TypeOrmModule.forRootAsync({
      imports: [DatabaseEndpointModule],
      inject: [AppConfig, DatabaseEndpoint],
      useFactory: (config: AppConfig, endpoint: DatabaseEndpoint) => ({
        ...buildDataSourceOptions({
          url: endpoint.url,
          poolSize: config.database.poolSize,
          connectTimeoutMs: config.database.connectTimeoutMs,
          migrationsRun: config.database.migrationsRun,
          namedStatements: config.database.preparedStatements && !endpoint.embedded,
        }),
        // Fail fast at start instead of retrying for half a minute.
        retryAttempts: 2,
        retryDelay: 1000,
      }),
    }),
  ],
  providers: [Transactions, DatabasePool],
  exports: [DatabaseEndpointModule, Transactions, DatabasePool],
})
export class DatabaseModule {}
