import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CodeEndReason, CodePurpose } from '../infra/database/entities/one-time-code.entity.js';

export type { CodeEndReason };

/**
 * A row of `one_time_codes`, the one shape the table's statements answer in: every column aliased
 * to its camelCase name (`code_hash AS "codeHash"`).
 */
export interface OneTimeCodeRow {
  id: string;
  purpose: CodePurpose;
  recipient: string | null;
  /** The account the code proves; null when the recipient belongs to nobody. */
  userId: string | null;
  /** What the code completes: a temp token's `jti`, a pending change's id. */
  reference: string | null;
  codeHash: string;
  attempts: number;
  /** Times the code was texted on request, each a new code in this row (`send-2fa`). */
  askedSends: number;
  clientIp: string | null;
  expiresAt: Date;
  endedAt: Date | null;
  endReason: CodeEndReason | null;
  createdAt: Date;
}

const COLUMNS = `id, purpose, recipient, user_id AS "userId", reference, code_hash AS "codeHash", attempts,
  asked_sends AS "askedSends", client_ip AS "clientIp", expires_at AS "expiresAt", ended_at AS "endedAt", end_reason AS "endReason",
  created_at AS "createdAt"`;

/** Which code of a purpose a statement means: the latest of a recipient or an account, or the one of a reference. */
export type CodeKey = { recipient: string } | { userId: string } | { reference: string };

function where(key: CodeKey): { column: string; value: string } {
  if ('recipient' in key) return { column: 'recipient', value: key.recipient };
  if ('userId' in key) return { column: 'user_id', value: key.userId };
  return { column: 'reference', value: key.reference };
}

/** What the send limits read of the last hour, for one recipient and one client address. */
export interface SentCodesStats {
  /** The recipient's latest code anyone could ask for. */
  lastAskedForRecipient: Date | null;
  /** Codes of every purpose of the channel sent to the recipient, and the first of them. */
  sentToRecipient: number;
  firstToRecipient: Date | null;
  /** Codes anyone could ask for, asked from the address, and the first of them. */
  askedFromAddress: number;
  firstFromAddress: Date | null;
}

/**
 * The `one_time_codes` table: every statement on it. Each runs on the manager of a transaction the
 * calling flow opened (the locks and the row locks hold until it ends).
 */
@Injectable()
export class OneTimeCodesRepository {
  /**
   * Every code sent to a recipient (a mobile or an address, whatever the purpose) is issued under
   * this transaction-scoped advisory lock, so the cooldown and the hourly caps cannot be raced.
   */
  async lockRecipient(manager: EntityManager, recipient: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`one-time-code:${recipient}`]);
  }

  /** The codes of the last hour on one channel (`purposes`), for a recipient and a client address. */
  async sentLastHour(
    manager: EntityManager,
    purposes: { all: CodePurpose[]; asked: CodePurpose[] },
    recipient: string,
    address: string | null,
  ): Promise<SentCodesStats> {
    const [stats]: SentCodesStats[] = await manager.query(
      `SELECT max(created_at) FILTER (WHERE recipient = $1 AND purpose = ANY($4)) AS "lastAskedForRecipient",
              count(*) FILTER (WHERE recipient = $1)::int AS "sentToRecipient",
              min(created_at) FILTER (WHERE recipient = $1) AS "firstToRecipient",
              count(*) FILTER (WHERE client_ip = $2 AND purpose = ANY($4))::int AS "askedFromAddress",
              min(created_at) FILTER (WHERE client_ip = $2 AND purpose = ANY($4)) AS "firstFromAddress"
         FROM one_time_codes
        WHERE created_at > now() - interval '1 hour' AND purpose = ANY($3) AND (recipient = $1 OR client_ip = $2)`,
      [recipient, address, purposes.all, purposes.asked],
    );
    return stats;
  }

  /** The wrong answers of the recipient's latest code of `purpose` of the last `seconds`, unless it was used. */
  async recentWrongAnswers(
    manager: EntityManager,
    purpose: CodePurpose,
    recipient: string,
    seconds: number,
  ): Promise<number> {
    const [latest]: Pick<OneTimeCodeRow, 'attempts' | 'endReason'>[] = await manager.query(
      `SELECT attempts, end_reason AS "endReason" FROM one_time_codes
        WHERE recipient = $1 AND purpose = $2 AND created_at > now() - make_interval(secs => $3)
        ORDER BY created_at DESC LIMIT 1`,
      [recipient, purpose, seconds],
    );
    return latest && latest.endReason !== 'used' ? latest.attempts : 0;
  }

  /** Ends the live codes of `purpose` for a recipient or an account: a new one replaces them. */
  async replaceLive(manager: EntityManager, purpose: CodePurpose, key: CodeKey): Promise<void> {
    const { column, value } = where(key);
    await manager.query(
      `UPDATE one_time_codes SET ended_at = now(), end_reason = 'replaced'
        WHERE ${column} = $1 AND purpose = $2 AND ended_at IS NULL`,
      [value, purpose],
    );
  }

  async insert(
    manager: EntityManager,
    code: Pick<
      OneTimeCodeRow,
      'purpose' | 'recipient' | 'userId' | 'reference' | 'codeHash' | 'attempts' | 'clientIp' | 'expiresAt'
    >,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO one_time_codes (purpose, recipient, user_id, reference, code_hash, attempts, client_ip, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        code.purpose,
        code.recipient,
        code.userId,
        code.reference,
        code.codeHash,
        code.attempts,
        code.clientIp,
        code.expiresAt,
      ],
    );
  }

  /** The latest code of `purpose` for the key, locked until the transaction ends. */
  async lockLatest(manager: EntityManager, purpose: CodePurpose, key: CodeKey): Promise<OneTimeCodeRow | null> {
    const { column, value } = where(key);
    const [row]: OneTimeCodeRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM one_time_codes WHERE ${column} = $1 AND purpose = $2
        ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
      [value, purpose],
    );
    return row ?? null;
  }

  /** A new code in a live row, texted on request: its attempts and its end stay; the send is counted. */
  async rekey(manager: EntityManager, id: string, recipient: string, codeHash: string): Promise<void> {
    await manager.query(
      `UPDATE one_time_codes SET recipient = $2, code_hash = $3, asked_sends = asked_sends + 1 WHERE id = $1`,
      [id, recipient, codeHash],
    );
  }

  /** A right answer: the code is used and can never match again. */
  async markUsed(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE one_time_codes SET ended_at = now(), end_reason = 'used' WHERE id = $1`, [id]);
  }

  /** A wrong answer: one more attempt, and the code is burned when they are used up. */
  async countWrongAnswer(manager: EntityManager, id: string, attempts: number, burned: boolean): Promise<void> {
    await manager.query(
      `UPDATE one_time_codes SET attempts = $2,
              ended_at = CASE WHEN $3 THEN now() ELSE ended_at END,
              end_reason = CASE WHEN $3 THEN 'burned' ELSE end_reason END
        WHERE id = $1`,
      [id, attempts, burned],
    );
  }

  /**
   * The codes asked for an address that belong to no account (they name no user, so the account's
   * deletion does not cascade to them): deleted with the account that held the address.
   */
  async deleteAddressedTo(manager: EntityManager, recipient: string): Promise<void> {
    await manager.query(`DELETE FROM one_time_codes WHERE recipient = $1 AND purpose = 'email_sign_in'`, [recipient]);
  }
}
