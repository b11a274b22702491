import { Injectable } from '@nestjs/common';
import { pageOf, pageOffset, type Page } from '../common/pagination.dto.js';
import type { ListAuditEventsQuery } from './audit.dto.js';
import { toAuditEventResponse, type AuditEventResponse } from './audit-event-response.js';
import { AuditEventsRepository } from './audit-events.repository.js';

/** The audit trail as administrators read it. */
@Injectable()
export class AuditTrailService {
  constructor(private readonly events: AuditEventsRepository) {}

  /** Newest first; `user_id` matches the actor or the target; every filter given applies. */
  async list(query: ListAuditEventsQuery): Promise<Page<AuditEventResponse>> {
    const { items, total } = await this.events.findPage(
      {
        userId: query.user_id,
        type: query.type,
        actorId: query.actor_id,
        targetId: query.target_id,
        from: query.from === undefined ? undefined : new Date(query.from),
        to: query.to === undefined ? undefined : new Date(query.to),
      },
      query.limit,
      pageOffset(query),
    );
    return pageOf(query, items.map(toAuditEventResponse), total);
  }
}
