import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config.js';

/** Where the service's PostgreSQL is: a server from DATABASE_URL, or the embedded one. */
export abstract class DatabaseEndpoint {
  abstract readonly url: string;
  abstract readonly embedded: boolean;
  abstract stop(): Promise<void>;
}

export async function openDatabaseEndpoint(config: AppConfig): Promise<DatabaseEndpoint> {
  if (config.database.url) {
    return { url: config.database.url, embedded: false, stop: async () => undefined };
  }
  // Loaded only here: a service on a PostgreSQL server never loads PGlite.
  const { startEmbeddedPostgres } = await import('./embedded-postgres.js');
  // Headroom over the pool so a health check or a second pool never waits on the multiplexer.
  const embedded = await startEmbeddedPostgres({
    dataDir: config.database.dataDir,
    maxConnections: config.database.poolSize + 5,
  });
  return { url: embedded.url, embedded: true, stop: () => embedded.stop() };
}

/**
 * Stops the embedded database after the connection pool: the pool is closed here first, because
 * Nest gives no order between this hook and TypeORM's own.
 */
@Injectable()
export class DatabaseEndpointShutdown implements OnApplicationShutdown {
  private readonly logger = new Logger('Database');

  constructor(
    @Inject(DatabaseEndpoint) private readonly endpoint: DatabaseEndpoint,
    private readonly moduleRef: ModuleRef,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (!this.endpoint.embedded) return;
    const dataSource = this.moduleRef.get(DataSource, { strict: false });
    if (dataSource.isInitialized) await dataSource.destroy();
    await this.endpoint.stop();
    this.logger.log('Embedded PostgreSQL stopped');
  }
}
