import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The audit table's maintenance queries. */
@Injectable()
export class AuditEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Deletes at most `limit` events created before `cutoff`, oldest first (IDX_audit_events_created_at),
   * in one short statement. SKIP LOCKED: instances deleting at the same time take disjoint rows
   * instead of waiting on each other's.
   */
  async deleteBatchCreatedBefore(cutoff: Date, limit: number): Promise<number> {
    // TypeORM answers a DELETE with [rows, affected].
    const [, deleted]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM audit_events WHERE id IN (
         SELECT id FROM audit_events WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [cutoff, limit],
    );
    return deleted;
  }
}
