import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { OutboxChannel, OutboxKind, OutboxStatus } from '../database/entities/outbox-message.entity.js';

/** The values of `channel`, `kind` and `status`, declared once, with the table's schema. */
export type { OutboxChannel, OutboxKind, OutboxStatus };

/**
 * A row of `outbox_messages`, the one shape the table's statements answer in: every column
 * aliased to its camelCase name (`user_id AS "userId"`).
 */
export interface OutboxMessageRow {
  id: string;
  channel: OutboxChannel;
  kind: OutboxKind;
  userId: string | null;
  origin: string;
  /** AES-256-GCM of `{to, subject?, text}`; null once finished. */
  payload: Buffer | null;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** A message a sender claimed: what its delivery needs. */
export type ClaimedMessage = Pick<OutboxMessageRow, 'id' | 'channel' | 'kind' | 'userId' | 'payload' | 'attempts'>;

/** Every query of the outbox table. */
@Injectable()
export class OutboxRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    manager: EntityManager,
    row: Pick<OutboxMessageRow, 'id' | 'channel' | 'kind' | 'userId' | 'origin'> & { payload: Buffer },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO outbox_messages (id, channel, kind, user_id, origin, payload) VALUES ($1, $2, $3, $4, $5, $6)`,
      [row.id, row.channel, row.kind, row.userId, row.origin, row.payload],
    );
  }

  /**
   * Claims up to `limit` due messages: this instance's own at once, other instances' once they
   * have been overdue for `orphanAfterSeconds`. Rows another sender is claiming right now are
   * skipped (SKIP LOCKED), and a claimed row is pushed out by `leaseSeconds`, so each message has
   * one sender at a time and comes back if that sender dies mid-delivery.
   */
  async claim(
    origin: string,
    limit: number,
    leaseSeconds: number,
    orphanAfterSeconds: number,
  ): Promise<ClaimedMessage[]> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [rows]: [ClaimedMessage[], number] = await this.dataSource.query(
      `UPDATE outbox_messages m
          SET attempts = m.attempts + 1, next_attempt_at = now() + make_interval(secs => $3)
        WHERE m.id IN (
          SELECT id FROM outbox_messages
           WHERE status = 'pending'
             AND (next_attempt_at <= now() - make_interval(secs => $4) OR (origin = $1 AND next_attempt_at <= now()))
           ORDER BY next_attempt_at
           LIMIT $2
           FOR UPDATE SKIP LOCKED)
        RETURNING m.id, m.channel, m.kind, m.user_id AS "userId", m.payload, m.attempts`,
      [origin, limit, leaseSeconds, orphanAfterSeconds],
    );
    return rows;
  }

  /** The messages still sealed (not yet finished): what a data-key rotation re-seals. */
  findSealed(): Promise<{ id: string; payload: Buffer }[]> {
    return this.dataSource.query(`SELECT id, payload FROM outbox_messages WHERE payload IS NOT NULL ORDER BY id`);
  }

  /** Replaces a payload only while it is still the one that was read (a delivery in between wipes it). */
  async replacePayload(id: string, previous: Buffer, next: Buffer): Promise<boolean> {
    const [, affected]: [unknown, number] = await this.dataSource.query(
      `UPDATE outbox_messages SET payload = $3 WHERE id = $1 AND payload = $2`,
      [id, previous, next],
    );
    return affected === 1;
  }

  /** Delivered, dropped or given up: the payload is wiped, the row stays as a record. */
  async finish(id: string, status: Exclude<OutboxStatus, 'pending'>, lastError: string | null = null): Promise<void> {
    await this.dataSource.query(
      `UPDATE outbox_messages SET status = $2, payload = NULL, last_error = $3, finished_at = now() WHERE id = $1`,
      [id, status, lastError],
    );
  }

  async retryLater(id: string, delayMs: number, lastError: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE outbox_messages SET next_attempt_at = now() + make_interval(secs => $2), last_error = $3 WHERE id = $1`,
      [id, delayMs / 1000, lastError],
    );
  }

  /** Messages not yet delivered, dropped or given up, across every instance. */
  async countPending(): Promise<number> {
    const [row]: { count: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM outbox_messages WHERE status = 'pending'`,
    );
    return row?.count ?? 0;
  }

  /** Finished rows are kept a day for inspection, then deleted. */
  async deleteFinishedBefore(seconds: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM outbox_messages WHERE status <> 'pending' AND finished_at < now() - make_interval(secs => $1)`,
      [seconds],
    );
  }
}
