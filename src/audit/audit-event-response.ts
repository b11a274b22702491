import type { ListedAuditEventRow } from './audit-events.repository.js';

/** An audit event as `GET /api/admin/audit-events` answers it. */
export interface AuditEventResponse {
  id: string;
  type: string;
  actor_id: string | null;
  /** The actor's email while the account exists. */
  actor_email: string | null;
  target_type: string | null;
  target_id: string | null;
  /** A user target's email while the account exists. */
  target_email: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

export function toAuditEventResponse(event: ListedAuditEventRow): AuditEventResponse {
  return {
    id: event.id,
    type: event.type,
    actor_id: event.actorId,
    actor_email: event.actorEmail,
    target_type: event.targetType,
    target_id: event.targetId,
    target_email: event.targetEmail,
    ip: event.ip,
    user_agent: event.userAgent,
    details: event.details,
    created_at: event.createdAt,
  };
}
