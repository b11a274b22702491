import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { AuditEventsRepository } from './audit-events.repository.js';

const DAY_MS = 24 * 60 * 60_000;
/** Rows per DELETE: each batch is its own short transaction, so no lock is held for long. */
const BATCH_SIZE = 5_000;
/** The first run waits a little after start, so it never competes with start-up work. */
const FIRST_RUN_DELAY_MS = 60_000;

/**
 * Keeps the audit table to AUDIT_RETENTION_DAYS: once a day (and a minute after start) older
 * events are deleted in batches. Every instance runs it; batches skip rows another instance
 * is deleting, so running it twice at once only shares the work.
 */
@Injectable()
export class AuditRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AuditRetention');
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly events: AuditEventsRepository,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const schedule = (delay: number) => {
      this.timer = setTimeout(() => {
        this.running = this.deleteExpired()
          .catch((error: Error) => this.logger.error(`Audit retention failed: ${error.message}`))
          .finally(() => schedule(DAY_MS));
      }, delay);
      // A pending run never keeps the process alive.
      this.timer.unref();
    };
    schedule(FIRST_RUN_DELAY_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.timer);
    await this.running;
  }

  /** Deletes every event older than the retention period, batch by batch; answers what it did. */
  async deleteExpired(batchSize = BATCH_SIZE): Promise<{ deleted: number; batches: number }> {
    const cutoff = new Date(Date.now() - this.config.audit.retentionDays * DAY_MS);
    let deleted = 0;
    let batches = 0;
    for (;;) {
      const count = await this.events.deleteBatchCreatedBefore(cutoff, batchSize);
      if (count === 0) break;
      deleted += count;
      batches += 1;
      if (count < batchSize) break;
    }
    if (deleted > 0) {
      this.logger.log(`Deleted ${deleted} audit events older than ${this.config.audit.retentionDays} days`);
    }
    return { deleted, batches };
  }
}
