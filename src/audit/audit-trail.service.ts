import { Injectable } from '@nestjs/common';
import type { ListAuditEventsQuery } from './audit.dto.js';
import { AuditEventsRepository, type AuditEventRow } from '../core/audit/audit-events.repository.js';

/** The audit trail as administrators read it. */
@Injectable()
export class AuditTrailService {
  constructor(private readonly events: AuditEventsRepository) {}

  /** Newest first; `user_id` matches the actor or the target. */
  async list(
    query: ListAuditEventsQuery,
  ): Promise<{ items: AuditEventRow[]; total: number; page: number; limit: number }> {
    const { items, total } = await this.events.findPage(
      { userId: query.user_id, type: query.type },
      query.limit,
      (query.page - 1) * query.limit,
    );
    return { items, total, page: query.page, limit: query.limit };
  }
}
