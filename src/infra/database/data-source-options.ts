import type { DataSourceOptions } from 'typeorm';
import { entities } from './entities/index.js';
import { migrations } from './migrations/index.js';
import { NAMED_STATEMENTS } from './named-statements.js';
import { logPoolError, TypeOrmNestLogger } from './typeorm-logger.js';

export interface ConnectionSettings {
  url: string;
  poolSize: number;
  connectTimeoutMs: number;
  migrationsRun: boolean;
  /** A PostgreSQL server's (not the embedded database's): see `queryNamed` (named-statements.ts). */
  namedStatements?: boolean;
}

/** One set of options for every PostgreSQL the service talks to, server or embedded. */
export function buildDataSourceOptions(settings: ConnectionSettings): DataSourceOptions {
  const options: DataSourceOptions = {
    type: 'postgres',
    url: settings.url,
    entities,
    migrations,
    migrationsRun: settings.migrationsRun,
    migrationsTransactionMode: 'each',
    // The schema comes from migrations only.
    synchronize: false,
    // Ids default to gen_random_uuid(), built into PostgreSQL 13+ and PGlite, so no extension
    // needs installing (which managed databases often forbid).
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    poolSize: settings.poolSize,
    connectTimeoutMS: settings.connectTimeoutMs,
    extra: {
      // Bound how long a request can wait for a connection when the database is away.
      connectionTimeoutMillis: settings.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
    },
    // Not 'error' or 'query': TypeORM prints a failed query's parameters, which may hold hashes.
    logging: ['warn', 'migration'],
    logger: new TypeOrmNestLogger(['warn', 'migration']),
    // A dead idle connection must not end the process; the pool replaces it on demand.
    poolErrorHandler: logPoolError,
  };
  return Object.assign(options, { [NAMED_STATEMENTS]: settings.namedStatements === true });
}
