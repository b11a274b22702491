import { Injectable, Logger } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../config/app-config.js';
import { DatabasePool } from '../infra/database/database-pool.js';
import { OutboxRepository } from '../infra/messaging/outbox.repository.js';
import { databasePool, metricsRegistry, outboxDepth } from '../infra/telemetry/service-metrics.js';

@Injectable()
export class MetricsService {
  private readonly logger = new Logger('Metrics');
  private readonly tokenDigest?: Buffer;
  /** In production, /metrics exists only with METRICS_TOKEN: counters tell a lot about the accounts. */
  readonly served: boolean;

  constructor(
    config: AppConfig,
    private readonly pool: DatabasePool,
    private readonly outbox: OutboxRepository,
  ) {
    const token = config.operations.metricsToken;
    this.tokenDigest = token === undefined ? undefined : digest(token);
    this.served = token !== undefined || !config.isProduction;
  }

  get contentType(): string {
    return metricsRegistry.contentType;
  }

  /** Without METRICS_TOKEN anyone may scrape; with it, only `Authorization: Bearer <token>`. */
  mayScrape(authorization: string | undefined): boolean {
    if (!this.tokenDigest) return true;
    const presented = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
    // Digests have one length, so the comparison takes the same time whatever was presented.
    return presented !== undefined && timingSafeEqual(digest(presented), this.tokenDigest);
  }

  /** The Prometheus text, with the gauges that need the database read now. */
  async render(): Promise<string> {
    const pool = this.pool.counts();
    if (pool && typeof pool.totalCount === 'number') {
      databasePool.set({ state: 'total' }, pool.totalCount);
      databasePool.set({ state: 'idle' }, pool.idleCount ?? 0);
      databasePool.set({ state: 'waiting' }, pool.waitingCount ?? 0);
    }
    try {
      outboxDepth.set(await this.outbox.countPending());
    } catch (error) {
      // A scrape during a database outage still answers, with the other metrics.
      this.logger.warn(`Outbox depth not read: ${(error as Error).message}`);
    }
    return metricsRegistry.metrics();
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
