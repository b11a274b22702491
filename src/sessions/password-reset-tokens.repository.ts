import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * A row of `password_reset_tokens`, the one shape the table's statements answer in: every column
 * aliased to its camelCase name (`user_id AS "userId"`).
 */
export interface PasswordResetTokenRow {
  id: string;
  userId: string;
  /** The SHA-256 of the link's token: the token itself is never stored. */
  tokenHash: string;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

/** Reset tokens, found and consumed by their SHA-256 only. */
@Injectable()
export class PasswordResetTokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Serialises the reset requests of one account (or one unknown address) until the transaction ends. */
  async lockRequests(manager: EntityManager, key: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`reset:${key}`]);
  }

  async insert(
    manager: EntityManager,
    token: Pick<PasswordResetTokenRow, 'userId' | 'tokenHash' | 'expiresAt'>,
  ): Promise<void> {
    await manager.query(`INSERT INTO password_reset_tokens (user_id, token_hash, expires_at) VALUES ($1, $2, $3)`, [
      token.userId,
      token.tokenHash,
      token.expiresAt,
    ]);
  }

  /** Whether a token was issued to the user in the last `seconds`. */
  async issuedWithin(manager: EntityManager, userId: string, seconds: number): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM password_reset_tokens WHERE user_id = $1 AND created_at > now() - make_interval(secs => $2) LIMIT 1`,
      [userId, seconds],
    );
    return rows.length > 0;
  }

  /** Every outstanding token of the user becomes unusable (400 RESET_TOKEN_INVALID). */
  async voidAllOfUser(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(`UPDATE password_reset_tokens SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, [
      userId,
    ]);
  }

  /** The user of a token that is still usable, or null. */
  async findUserOfUsable(tokenHash: string): Promise<string | null> {
    const rows: Pick<PasswordResetTokenRow, 'userId'>[] = await this.dataSource.query(
      `SELECT user_id AS "userId" FROM password_reset_tokens
        WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()`,
      [tokenHash],
    );
    return rows[0]?.userId ?? null;
  }

  /**
   * Marks a usable token used and returns its user, or null. One UPDATE: of two concurrent
   * consumers the second waits for the first's row lock, re-reads `used_at` and gets nothing.
   */
  async consume(manager: EntityManager, tokenHash: string): Promise<string | null> {
    const [rows]: [Pick<PasswordResetTokenRow, 'userId'>[], number] = await manager.query(
      `UPDATE password_reset_tokens SET used_at = now()
        WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id AS "userId"`,
      [tokenHash],
    );
    return rows[0]?.userId ?? null;
  }
}
