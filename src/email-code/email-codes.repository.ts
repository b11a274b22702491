import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * A row of `email_codes`, the one shape the table's statements answer in: every column aliased to
 * its camelCase name (`code_hash AS "codeHash"`).
 */
export interface EmailCodeRow {
  id: string;
  email: string;
  /** Null for an address of nobody's: the code was never mailed and matches nothing. */
  userId: string | null;
  codeHash: string;
  attempts: number;
  clientIp: string | null;
  expiresAt: Date;
  endedAt: Date | null;
  endReason: string | null;
  createdAt: Date;
}

/** A stored code as the check of an answer reads it. */
export type CheckedEmailCodeRow = Pick<
  EmailCodeRow,
  'id' | 'userId' | 'codeHash' | 'attempts' | 'expiresAt' | 'endedAt' | 'endReason'
>;

/** The `email_codes` table: sign-in codes mailed to an address, keyed hashes only. */
@Injectable()
export class EmailCodesRepository {
  /** One sender per address at a time, so the interval and the hourly cap cannot be raced. */
  async lockAddress(manager: EntityManager, email: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`email-code:${email}`]);
  }

  /** The codes asked for the address in the last hour: their number, and when the last was. */
  async sentLastHour(manager: EntityManager, email: string): Promise<{ sent: number; last: Date | null }> {
    const [row]: { sent: number; last: Date | null }[] = await manager.query(
      `SELECT count(*)::int AS sent, max(created_at) AS last FROM email_codes
        WHERE email = $1 AND created_at > now() - interval '1 hour'`,
      [email],
    );
    return row;
  }

  /** The wrong attempts of the address's latest code of the last `seconds`, unless it was used. */
  async recentAttempts(manager: EntityManager, email: string, seconds: number): Promise<number> {
    const [row]: Pick<EmailCodeRow, 'attempts' | 'endReason'>[] = await manager.query(
      `SELECT attempts, end_reason AS "endReason" FROM email_codes
        WHERE email = $1 AND created_at > now() - make_interval(secs => $2)
        ORDER BY created_at DESC LIMIT 1`,
      [email, seconds],
    );
    return row && row.endReason !== 'used' ? row.attempts : 0;
  }

  /** A new code ends the address's live ones. */
  async replaceLive(manager: EntityManager, email: string): Promise<void> {
    await manager.query(
      `UPDATE email_codes SET ended_at = now(), end_reason = 'replaced' WHERE email = $1 AND ended_at IS NULL`,
      [email],
    );
  }

  async insert(
    manager: EntityManager,
    code: Pick<EmailCodeRow, 'email' | 'userId' | 'codeHash' | 'attempts' | 'clientIp' | 'expiresAt'>,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO email_codes (email, user_id, code_hash, attempts, client_ip, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [code.email, code.userId, code.codeHash, code.attempts, code.clientIp, code.expiresAt],
    );
  }

  /** The address's latest code, locked until the transaction ends. */
  async lockLatest(manager: EntityManager, email: string): Promise<CheckedEmailCodeRow | null> {
    const [row]: CheckedEmailCodeRow[] = await manager.query(
      `SELECT id, user_id AS "userId", code_hash AS "codeHash", attempts, expires_at AS "expiresAt",
              ended_at AS "endedAt", end_reason AS "endReason"
         FROM email_codes
        WHERE email = $1 ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
      [email],
    );
    return row ?? null;
  }

  async markUsed(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE email_codes SET ended_at = now(), end_reason = 'used' WHERE id = $1`, [id]);
  }

  /** One more wrong attempt; the code is burned when they are used up. */
  async countWrong(manager: EntityManager, id: string, attempts: number, burned: boolean): Promise<void> {
    await manager.query(
      `UPDATE email_codes SET attempts = $2,
              ended_at = CASE WHEN $3 THEN now() ELSE ended_at END,
              end_reason = CASE WHEN $3 THEN 'burned' ELSE end_reason END
        WHERE id = $1`,
      [id, attempts, burned],
    );
  }
}
