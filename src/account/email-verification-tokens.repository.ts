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

  /**
   * A new link for an unverified account whose address's interval (`seconds`) and hourly cap
   * (`hourlyCap`) allow one: earlier links voided and the new one inserted, in one statement that
   * does the same work for any id (one of no account, or of a verified address, writes nothing).
   * True when the link was inserted.
   */
  async reissueIfAllowed(
    manager: EntityManager,
    token: Pick<EmailVerificationTokenRow, 'userId' | 'email' | 'tokenHash' | 'expiresAt'>,
    limits: { seconds: number; hourlyCap: number },
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `WITH recent AS (
         SELECT count(*)::int AS count, coalesce(bool_or(created_at > now() - make_interval(secs => $5)), false) AS recent
           FROM email_verification_tokens WHERE user_id = $1 AND created_at > now() - interval '1 hour'
       ), eligible AS (
         SELECT u.id FROM users u, recent r
          WHERE u.id = $1 AND u.email_verified_at IS NULL AND NOT r.recent AND r.count < $6
       ), voided AS (
         UPDATE email_verification_tokens SET used_at = now()
          WHERE user_id IN (SELECT id FROM eligible) AND used_at IS NULL
       )
       INSERT INTO email_verification_tokens (user_id, email, token_hash, expires_at)
       SELECT id, $2, $3, $4 FROM eligible RETURNING id`,
      [token.userId, token.email, token.tokenHash, token.expiresAt, limits.seconds, limits.hourlyCap],
    );
    return rows.length === 1;
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
