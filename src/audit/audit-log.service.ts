import { Injectable, Logger } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import type { AuditEntry, AuditEventType } from './audit-entry.js';
import { AuditEventsRepository, type AuditRow } from './audit-events.repository.js';
import { countAuditEvent } from './audit-metrics.js';

export type { AuditEntry, AuditEventType } from './audit-entry.js';

/**
 * The record a change was made to, as the trail names it: its type and id, and the facts that
 * identify it beside the id (a client's whole `client_id`, a provider's slug), kept in the details.
 */
export interface AuditTarget {
  type: NonNullable<AuditEntry['targetType']>;
  id: string;
  facts?: Record<string, unknown>;
}

/** The contract keeps at most this much of a client's user agent. */
export const USER_AGENT_MAX_CHARS = 256;

/** Cut by code points, so a surrogate pair is never split into an invalid character. */
function truncateCodePoints(value: string | undefined, max: number): string | null {
  if (value === undefined) return null;
  return value.length <= max ? value : Array.from(value).slice(0, max).join('');
}

/**
 * Writes the audit trail: a row per event and a log line. Recording never fails the request it
 * describes; a lost row is logged as an error instead.
 */
@Injectable()
export class AuditLog {
  private readonly logger = new Logger('Audit');

  constructor(private readonly events: AuditEventsRepository) {}

  async record(entry: AuditEntry): Promise<void> {
    const row = this.rowOf(entry);
    this.announce(entry, row);
    try {
      await this.events.insert(row);
    } catch (error) {
      this.logger.error(`Audit event ${row.type} not stored: ${(error as Error).message}`);
    }
  }

  /**
   * A change a caller made to one record. The caller is recorded as it called: a person, or a
   * service client with its own token (which `rowOf` names apart from people).
   */
  recordChange(
    type: AuditEventType,
    actor: Actor,
    target: AuditTarget,
    details?: Record<string, unknown>,
  ): Promise<void> {
    return this.record({
      type,
      actorId: actor.id,
      actorKind: actor.kind,
      targetType: target.type,
      targetId: target.id,
      details: target.facts ? { ...target.facts, ...details } : details,
    });
  }

  /**
   * What an account's holder did to (or met with on) their own account: the holder is both the
   * actor and the target, so a person's history in the trail shows it.
   */
  recordOnOwnAccount(
    type: AuditEventType,
    userId: string,
    client: AuditEntry['client'],
    details?: Record<string, unknown>,
  ): Promise<void> {
    return this.record({ type, actorId: userId, targetType: 'user', targetId: userId, client, details });
  }

  /** The row of an event that a change writes in its own statement (a session's insert or rotation). */
  rowOf(entry: AuditEntry): AuditRow {
    // A service client (client-credentials token) is no person: its id goes to the details.
    const clientActor = entry.actorKind === 'service' && entry.actorId ? entry.actorId : null;
    return {
      type: entry.type,
      actorId: clientActor ? null : (entry.actorId ?? null),
      targetType: entry.targetType ?? null,
      targetId: entry.targetId ?? null,
      ip: entry.client?.ip?.slice(0, 64) ?? null,
      userAgent: truncateCodePoints(entry.client?.userAgent, USER_AGENT_MAX_CHARS),
      details: clientActor ? { ...entry.details, actor_client_id: clientActor } : (entry.details ?? {}),
    };
  }

  /** The log line and the metric of an event, once its row is written (or being written, by `record`). */
  announce(entry: AuditEntry, row: AuditRow = this.rowOf(entry)): void {
    countAuditEvent(entry);
    this.logger.log(
      `${row.type} actor=${row.actorId ?? '-'} target=${row.targetType ?? '-'}:${row.targetId ?? '-'} ip=${row.ip ?? '-'}`,
    );
  }
}
