import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { SecurityEvent, SecurityEventType } from './security-event.js';

/**
 * A row of `security_events`, the one shape the table's statements answer in: every column
 * aliased to its camelCase name (`created_at AS "createdAt"`). The id (a bigint, read as text)
 * orders the stream; the payload's keys (`not_before`) are the stream's wire format and stay.
 */
export interface SecurityEventRow {
  id: string;
  type: SecurityEventType;
  payload: Record<string, unknown>;
  createdAt: Date;
}

/**
 * The security events table. Ids become visible in id order (see the migration), so a reader that
 * goes by id misses nothing.
 */
/**
 * The security events of a revocation, for a statement that ends sessions or tokens and composes
 * this into its own: from `source`, a CTE of `(id, <subject>)` rows, either one `session-revoked`
 * per row (`sid` the row, `sub` its subject) or one `credential-change` per subject (every session
 * of a user).
 */
export function revocationEvents(
  source: string,
  kind: 'session-revoked' | 'credential-change',
  subjectColumn = 'user_id',
): string {
  return kind === 'credential-change'
    ? `INSERT INTO security_events (type, payload)
         SELECT 'credential-change', jsonb_build_object('sub', ${subjectColumn},
                'not_before', floor(extract(epoch FROM clock_timestamp()))::bigint)
           FROM ${source} GROUP BY ${subjectColumn} ORDER BY ${subjectColumn}`
    : `INSERT INTO security_events (type, payload)
         SELECT 'session-revoked', jsonb_build_object('sid', id, 'sub', ${subjectColumn}) FROM ${source} ORDER BY id`;
}

@Injectable()
export class SecurityEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Writes events in the caller's transaction; they are seen when it commits. */
  async append(manager: EntityManager, events: readonly SecurityEvent[]): Promise<void> {
    if (events.length === 0) return;
    const params: unknown[] = [];
    const rows = events.map(({ type, ...payload }) => {
      params.push(type, JSON.stringify(payload));
      return `($${params.length - 1}, $${params.length}::jsonb)`;
    });
    await manager.query(`INSERT INTO security_events (type, payload) VALUES ${rows.join(', ')}`, params);
  }

  /** A `role-change` for every role that holds the permission (before it is renamed or deleted). */
  async appendRoleChangesOfPermission(manager: EntityManager, permissionId: string): Promise<void> {
    await manager.query(
      `INSERT INTO security_events (type, payload)
         SELECT 'role-change', jsonb_build_object('role', r.name)
           FROM role_permissions rp JOIN roles r ON r.id = rp.role_id
          WHERE rp.permission_id = $1 ORDER BY r.name`,
      [permissionId],
    );
  }

  /**
   * `keys-rotated` for the key that signs now, unless it was already told (by another instance, or
   * before a restart while the event is kept): one event per new key.
   */
  async appendKeysRotatedUnlessTold(kid: string): Promise<boolean> {
    const [, count]: [unknown, number] = await this.dataSource.query(
      `INSERT INTO security_events (type, payload)
         SELECT 'keys-rotated', jsonb_build_object('kid', $1::text)
          WHERE NOT EXISTS (SELECT 1 FROM security_events WHERE type = 'keys-rotated' AND payload->>'kid' = $1)`,
      [kid],
    );
    return count > 0;
  }

  /**
   * Events after `afterId`, in id order, at most `limit`. The order names the bigint column: a bare
   * `ORDER BY id` would sort by the `id::text` output column, so "10" before "2", and a reader
   * would skip every event that sorts after a larger one.
   */
  async findAfter(afterId: string, limit: number): Promise<SecurityEventRow[]> {
    return this.dataSource.query(
      `SELECT e.id::text AS id, e.type, e.payload, e.created_at AS "createdAt" FROM security_events e
        WHERE e.id > $1 ORDER BY e.id LIMIT $2`,
      [afterId, limit],
    );
  }

  /** The newest id (0 when there is none): a new stream starts after it. */
  async lastId(): Promise<string> {
    const [row]: { id: string }[] = await this.dataSource.query(
      `SELECT COALESCE(max(id), 0)::text AS id FROM security_events`,
    );
    return row.id;
  }

  /** The oldest id still kept, null when the table is empty: events are deleted oldest first. */
  async oldestId(): Promise<string | null> {
    const [row]: { id: string | null }[] = await this.dataSource.query(
      `SELECT min(id)::text AS id FROM security_events`,
    );
    return row.id;
  }

  /** Drops events older than `before`, which no token they could concern outlives. */
  async deleteOlderThan(before: Date): Promise<number> {
    const [, count]: [unknown, number] = await this.dataSource.query(
      `DELETE FROM security_events WHERE created_at < $1`,
      [before],
    );
    return count;
  }
}
