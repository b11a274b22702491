import type { AuditEventRow } from './audit-events.repository.js';

/** An audit event as `GET /api/admin/audit-events` answers it. */
export interface AuditEventResponse {
  id: string;
  type: string;
  actor_id: string | null;
  target_type: string | null;
  target_id: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

export function toAuditEventResponse(event: AuditEventRow): AuditEventResponse {
  return {
    id: event.id,
    type: event.type,
    actor_id: event.actorId,
    target_type: event.targetType,
    target_id: event.targetId,
    ip: event.ip,
    user_agent: event.userAgent,
    details: event.details,
    created_at: event.createdAt,
  };
}
