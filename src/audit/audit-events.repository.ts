import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { underAdminStatementTimeout } from '../infra/database/admin-statement-timeout.js';

/**
 * A row of `audit_events`, the one shape the table's statements answer in: every column aliased to
 * its camelCase name (`actor_id AS "actorId"`).
 */
export interface AuditEventRow {
  id: string;
  type: string;
  actorId: string | null;
  targetType: string | null;
  targetId: string | null;
  ip: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
}

/** An event as the admin list reads it: with the email of the people it names, while they exist. */
export interface ListedAuditEventRow extends AuditEventRow {
  actorEmail: string | null;
  targetEmail: string | null;
}

const AUDIT_EVENT_COLUMNS = `id, type, actor_id AS "actorId", target_type AS "targetType", target_id AS "targetId", ip,
  user_agent AS "userAgent", details, created_at AS "createdAt"`;

export interface AuditEventFilter {
  /** Events the user did or that were done to them. */
  userId?: string;
  type?: string;
  actorId?: string;
  /** The object an event was done to (any type: the column is text). */
  targetId?: string;
  /** Created at or after. */
  from?: Date;
  /** Created at or before. */
  to?: Date;
}

/** One event as it is written: the row but for what the table generates (its id and time). */
export type AuditRow = Pick<
  AuditEventRow,
  'type' | 'actorId' | 'targetType' | 'targetId' | 'ip' | 'userAgent' | 'details'
>;

/** The audit table's queries: the writer's insert, the admin list and the retention's deletion. */
/**
 * The insert of one audit event, its values numbered from `$first`, as `INSERT ... SELECT`: a
 * statement of another table (a session's, say) composes it into its own, so there is never the
 * change without its event, nor the event without the change.
 */
export function auditEventInsert(row: AuditRow, first: number): { sql: string; params: unknown[] } {
  const casts = ['text', 'uuid', 'text', 'text', 'text', 'text', 'jsonb'];
  const values = casts.map((cast, i) => `$${first + i}::${cast}`).join(', ');
  return {
    sql: `INSERT INTO audit_events (type, actor_id, target_type, target_id, ip, user_agent, details) SELECT ${values}`,
    params: [row.type, row.actorId, row.targetType, row.targetId, row.ip, row.userAgent, JSON.stringify(row.details)],
  };
}

@Injectable()
export class AuditEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Plain SQL: TypeORM's insert would build it anew each time and read back the generated id and
   * time. A statement of another table that writes its event with its change (the session
   * statements) holds its own copy of this insert.
   */
  async insert(row: AuditRow): Promise<void> {
    const { sql, params } = auditEventInsert(row, 1);
    await this.dataSource.query(sql, params);
  }

  /**
   * A page of events, newest first, and the number matching, under the admin statement timeout.
   * The page is read from the created_at indexes (by type, actor or target when filtered); the
   * total is a plain count(*), not TypeORM's count(DISTINCT id), which sorts every id.
   */
  findPage(
    filter: AuditEventFilter,
    limit: number,
    offset: number,
  ): Promise<{ items: ListedAuditEventRow[]; total: number }> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (filter.userId) {
      // Two parameters: one is compared with a uuid column, the other with a text one.
      params.push(filter.userId, filter.userId);
      conditions.push(`(actor_id = $${params.length - 1}::uuid OR target_id = $${params.length})`);
    }
    if (filter.type) {
      params.push(filter.type);
      conditions.push(`type = $${params.length}`);
    }
    if (filter.actorId) {
      params.push(filter.actorId);
      conditions.push(`actor_id = $${params.length}::uuid`);
    }
    if (filter.targetId) {
      params.push(filter.targetId);
      conditions.push(`target_id = $${params.length}`);
    }
    if (filter.from) {
      params.push(filter.from);
      conditions.push(`created_at >= $${params.length}`);
    }
    if (filter.to) {
      params.push(filter.to);
      // Inclusive to the millisecond, the precision the API writes times in.
      conditions.push(`created_at < $${params.length}::timestamptz + interval '1 millisecond'`);
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    return underAdminStatementTimeout(this.dataSource, async (manager) => {
      const [{ total }] = await manager.query(`SELECT count(*)::int AS total FROM audit_events ${where}`, params);
      // The page first, then the people it names (by primary key, a row each): a deleted
      // account's events keep its id only, and read with no email.
      const items: ListedAuditEventRow[] = await manager.query(
        `SELECT e.*, actor.email AS "actorEmail", target.email AS "targetEmail"
           FROM (SELECT ${AUDIT_EVENT_COLUMNS} FROM audit_events ${where}
                  ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}) e
           LEFT JOIN users actor ON actor.id = e."actorId"
           LEFT JOIN LATERAL (
             SELECT email FROM users
              WHERE id = CASE WHEN e."targetType" = 'user' AND e."targetId" ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                              THEN e."targetId"::uuid END
           ) target ON true
          ORDER BY e."createdAt" DESC, e.id DESC`,
        [...params, limit, offset],
      );
      return { items, total };
    });
  }

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
