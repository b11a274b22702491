import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { AccountChangeKind } from '../infra/database/entities/account.entities.js';

/** What a request changes; declared once, with the table's schema. */
export type { AccountChangeKind };

/**
 * A row of `account_change_requests`, the one shape the table's statements answer in: every column
 * aliased to its camelCase name (`user_id AS "userId"`).
 */
export interface AccountChangeRequestRow {
  id: string;
  userId: string;
  kind: AccountChangeKind;
  newValue: string;
  /** The keyed hash of an email change's link token; null for a mobile change (its code is a one-time code). */
  secretHash: string | null;
  /** The session that asked: it stays signed in when the change applies. */
  sessionId: string | null;
  /** The SHA-256 of an email change's cancel link (sent to the old address). */
  cancelHash: string | null;
  clientIp: string | null;
  expiresAt: Date;
  endedAt: Date | null;
  createdAt: Date;
}

/** What a pending change is read as, by every lookup. */
export type PendingChangeRow = Pick<
  AccountChangeRequestRow,
  'id' | 'userId' | 'newValue' | 'secretHash' | 'sessionId' | 'expiresAt'
>;

const PENDING_COLUMNS = `id, user_id AS "userId", new_value AS "newValue", secret_hash AS "secretHash",
  session_id AS "sessionId", expires_at AS "expiresAt"`;

/** Every query on pending email and mobile changes. */
@Injectable()
export class AccountChangesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Ends the user's pending changes of this kind (a new request replaces them), then records the new one. */
  async replacePending(
    manager: EntityManager,
    change: {
      id: string;
      userId: string;
      kind: AccountChangeKind;
      newValue: string;
      secretHash: string | null;
      /** An email change's cancel link (sent to the old address), as its SHA-256. */
      cancelHash?: string | null;
      sessionId: string;
      clientIp: string | null;
      ttlSeconds: number;
    },
  ): Promise<string> {
    await manager.query(
      `UPDATE account_change_requests SET ended_at = now() WHERE user_id = $1 AND kind = $2 AND ended_at IS NULL`,
      [change.userId, change.kind],
    );
    const [row]: Pick<AccountChangeRequestRow, 'id'>[] = await manager.query(
      `INSERT INTO account_change_requests (id, user_id, kind, new_value, secret_hash, session_id, client_ip, expires_at, cancel_hash)
       VALUES ($8, $1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7), $9) RETURNING id`,
      [
        change.userId,
        change.kind,
        change.newValue,
        change.secretHash,
        change.sessionId,
        change.clientIp,
        change.ttlSeconds,
        change.id,
        change.cancelHash ?? null,
      ],
    );
    return row.id;
  }

  /** Seconds since the user's latest request of this kind, or null when there is none. */
  async secondsSinceLatest(manager: EntityManager, userId: string, kind: AccountChangeKind): Promise<number | null> {
    const [row] = await manager.query(
      `SELECT extract(epoch FROM now() - max(created_at))::float AS seconds FROM account_change_requests WHERE user_id = $1 AND kind = $2`,
      [userId, kind],
    );
    return row?.seconds ?? null;
  }

  /** The live (unended, unexpired) request with this secret hash, locked for the caller's transaction. */
  async lockLiveBySecret(
    manager: EntityManager,
    kind: AccountChangeKind,
    secretHash: string,
  ): Promise<PendingChangeRow | null> {
    const [row] = await manager.query(
      `SELECT ${PENDING_COLUMNS} FROM account_change_requests
        WHERE kind = $1 AND secret_hash = $2 AND ended_at IS NULL AND expires_at > now() FOR UPDATE`,
      [kind, secretHash],
    );
    return row ?? null;
  }

  findLiveBySecret(kind: AccountChangeKind, secretHash: string): Promise<PendingChangeRow | null> {
    return this.lockLiveBySecret(this.dataSource.manager, kind, secretHash);
  }

  /** The user's live request of this kind, locked for the caller's transaction. */
  async lockLiveOfUser(
    manager: EntityManager,
    userId: string,
    kind: AccountChangeKind,
  ): Promise<PendingChangeRow | null> {
    const [row] = await manager.query(
      `SELECT ${PENDING_COLUMNS} FROM account_change_requests
        WHERE user_id = $1 AND kind = $2 AND ended_at IS NULL AND expires_at > now()
        ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
      [userId, kind],
    );
    return row ?? null;
  }

  /** Ends every pending change of the user: a link or code asked for under an identity dies with it. */
  async endAllOfUser(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(`UPDATE account_change_requests SET ended_at = now() WHERE user_id = $1 AND ended_at IS NULL`, [
      userId,
    ]);
  }

  /**
   * Ends the live request whose cancel link hashes to `cancelHash` and answers its user, or null
   * when there is none (unknown, expired, used, or already ended): a cancel link works once.
   */
  async endByCancelHash(
    manager: EntityManager,
    cancelHash: string,
  ): Promise<Pick<AccountChangeRequestRow, 'userId'> | null> {
    const [rows]: [Pick<AccountChangeRequestRow, 'userId'>[], number] = await manager.query(
      `UPDATE account_change_requests SET ended_at = now()
        WHERE cancel_hash = $1 AND ended_at IS NULL AND expires_at > now() RETURNING user_id AS "userId"`,
      [cancelHash],
    );
    return rows[0] ?? null;
  }

  async end(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE account_change_requests SET ended_at = now() WHERE id = $1`, [id]);
  }
}
