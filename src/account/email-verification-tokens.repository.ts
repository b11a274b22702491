import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * A row of `email_verification_tokens`, the one shape the table's statements answer in: every
 * column aliased to its camelCase name (`user_id AS "userId"`).
 */
export interface EmailVerificationTokenRow {
  id: string;
  userId: string;
  /** The address the link proves: the account's address when the link was sent. */
  email: string;
  /** The SHA-256 of the link's token: the token itself is never stored. */
  tokenHash: string;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

/** What a consumed link proves: that this user holds this address. */
export type ConsumedVerificationRow = Pick<EmailVerificationTokenRow, 'userId' | 'email'>;

/** Verification links' tokens, found and consumed by their SHA-256 only. */
@Injectable()
export class EmailVerificationTokensRepository {
  /** Serialises the verification mails of one account (or one unknown address) until the transaction ends. */
  async lockRequests(manager: EntityManager, key: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`verify-email:${key}`]);
  }

  async insert(
    manager: EntityManager,
    token: Pick<EmailVerificationTokenRow, 'userId' | 'email' | 'tokenHash' | 'expiresAt'>,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO email_verification_tokens (user_id, email, token_hash, expires_at) VALUES ($1, $2, $3, $4)`,
      [token.userId, token.email, token.tokenHash, token.expiresAt],
    );
  }

  /** The links issued to the user in the last hour: how many, and whether one is from the last `seconds`. */
  async issuedLastHour(
    manager: EntityManager,
    userId: string,
    seconds: number,
  ): Promise<{ count: number; recent: boolean }> {
    const [row] = await manager.query(
      `SELECT count(*)::int AS count, coalesce(bool_or(created_at > now() - make_interval(secs => $2)), false) AS recent
         FROM email_verification_tokens WHERE user_id = $1 AND created_at > now() - interval '1 hour'`,
      [userId, seconds],
    );
    return row;
  }

  /** A new link voids the older ones. */
  async voidAllOfUser(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(`UPDATE email_verification_tokens SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, [
      userId,
    ]);
  }

  /** Marks a usable token used and answers its user and address, or null (unknown, used or expired). */
  async consume(manager: EntityManager, tokenHash: string): Promise<ConsumedVerificationRow | null> {
    const [rows]: [ConsumedVerificationRow[], number] = await manager.query(
      `UPDATE email_verification_tokens SET used_at = now()
        WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id AS "userId", email`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }
}
