import type { AuditEntry, AuditEventType } from '../audit/index.js';
import type { Actor } from '../common/actor.js';
import type { ClientInfo } from '../common/client-info.js';

/** Who asked for a change to an account, as the requests of the account's flows carry it. */
export interface AccountChangeOrigin {
  auditType: AuditEventType;
  /** The administrator acting on the account; absent when its holder acts. */
  actor?: Actor;
  client?: ClientInfo;
}

/** The audit row of a change to an account: its actor is the administrator who made it, else the holder. */
export function accountAuditEntry(
  origin: AccountChangeOrigin,
  userId: string,
  details?: Record<string, unknown>,
): AuditEntry {
  return {
    type: origin.auditType,
    actorId: origin.actor?.id ?? userId,
    actorKind: origin.actor?.kind,
    targetType: 'user',
    targetId: userId,
    client: origin.client,
    details,
  };
}
