import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DataSource } from 'typeorm';

/**
 * A row of `totp_authenticators`, the one shape the table's statements answer in: every column
 * aliased to its camelCase name (`secret_ciphertext AS "secretCiphertext"`).
 */
export interface TotpAuthenticatorRow {
  userId: string;
  /** Sealed by SecretBox: the secret is never stored in the clear. */
  secretCiphertext: string;
  /** Null while enrolment waits for its first code; the app is on once this is set. */
  confirmedAt: Date | null;
  /** The time step of the last accepted code: a code of that step or an earlier one is a replay. */
  lastUsedStep: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The authenticator app as a check of a code reads it. */
export type TotpSecretRow = Pick<TotpAuthenticatorRow, 'secretCiphertext' | 'confirmedAt' | 'lastUsedStep'>;

/** A row of `recovery_codes`, in the same way. */
export interface RecoveryCodeRow {
  id: string;
  userId: string;
  codeHash: string;
  usedAt: Date | null;
  createdAt: Date;
}

/** Every query on the authenticator-app and recovery-code tables. */
@Injectable()
export class SecondFactorsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Parallel password logins of one account take turns at creating its challenge. */
  async lockChallengesOf(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`2fa:${userId}`]);
  }

  async findTotp(userId: string, manager: EntityManager = this.dataSource.manager): Promise<TotpSecretRow | null> {
    const [row]: TotpSecretRow[] = await manager.query(
      `SELECT secret_ciphertext AS "secretCiphertext", confirmed_at AS "confirmedAt", last_used_step AS "lastUsedStep"
         FROM totp_authenticators WHERE user_id = $1`,
      [userId],
    );
    return row ?? null;
  }

  async hasConfirmedTotp(userId: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM totp_authenticators WHERE user_id = $1 AND confirmed_at IS NOT NULL`,
      [userId],
    );
    return rows.length > 0;
  }

  /** A new enrolment replaces a pending one; a confirmed app is never replaced here (the caller checks first). */
  async savePendingTotp(userId: string, secretCiphertext: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO totp_authenticators (user_id, secret_ciphertext) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET secret_ciphertext = EXCLUDED.secret_ciphertext, confirmed_at = NULL,
              last_used_step = NULL, updated_at = now()
        WHERE totp_authenticators.confirmed_at IS NULL`,
      [userId, secretCiphertext],
    );
  }

  /**
   * Records `step` as used unless it (or a later one) already was: the single UPDATE is the
   * replay check, so two requests with one code cannot both pass. Returns whether it was recorded.
   */
  async claimTotpStep(manager: EntityManager, userId: string, step: number, confirm: boolean): Promise<boolean> {
    const [rows]: [Pick<TotpAuthenticatorRow, 'userId'>[], number] = await manager.query(
      `UPDATE totp_authenticators SET last_used_step = $2, updated_at = now()
              ${confirm ? ', confirmed_at = now()' : ''}
        WHERE user_id = $1 AND (last_used_step IS NULL OR last_used_step < $2)
              AND confirmed_at IS ${confirm ? '' : 'NOT '}NULL
        RETURNING user_id AS "userId"`,
      [userId, step],
    );
    return rows.length === 1;
  }

  async deleteTotp(manager: EntityManager, userId: string): Promise<boolean> {
    const [rows]: [Pick<TotpAuthenticatorRow, 'userId'>[], number] = await manager.query(
      `DELETE FROM totp_authenticators WHERE user_id = $1 RETURNING user_id AS "userId"`,
      [userId],
    );
    await manager.query(`DELETE FROM recovery_codes WHERE user_id = $1`, [userId]);
    return rows.length === 1;
  }

  /** Every authenticator secret, sealed: what a data-key rotation re-seals. */
  findAllTotpSecrets(): Promise<{ userId: string; secretCiphertext: string }[]> {
    return this.dataSource.query(
      `SELECT user_id AS "userId", secret_ciphertext AS "secretCiphertext" FROM totp_authenticators ORDER BY user_id`,
    );
  }

  /** Replaces a sealed secret only while it is still the one that was read (a re-enrolment in between wins). */
  async replaceTotpSecret(userId: string, previous: string, next: string): Promise<boolean> {
    const [, affected]: [unknown, number] = await this.dataSource.query(
      `UPDATE totp_authenticators SET secret_ciphertext = $3, updated_at = now() WHERE user_id = $1 AND secret_ciphertext = $2`,
      [userId, previous, next],
    );
    return affected === 1;
  }

  /** How many accounts hold unused recovery codes stored as a keyed hash (made before Argon2id). */
  async countKeyedRecoveryCodeHolders(): Promise<number> {
    const [row]: { count: number }[] = await this.dataSource.query(
      `SELECT count(DISTINCT user_id)::int AS count FROM recovery_codes WHERE used_at IS NULL AND code_hash NOT LIKE '$argon2%'`,
    );
    return row?.count ?? 0;
  }

  async replaceRecoveryCodes(manager: EntityManager, userId: string, codeHashes: string[]): Promise<void> {
    await manager.query(`DELETE FROM recovery_codes WHERE user_id = $1`, [userId]);
    await manager.query(`INSERT INTO recovery_codes (user_id, code_hash) SELECT $1, unnest($2::varchar[])`, [
      userId,
      codeHashes,
    ]);
  }

  /** The user's unused recovery codes' hashes, to be verified one by one (each Argon2id hash has its own salt). */
  findUnusedRecoveryCodes(manager: EntityManager, userId: string): Promise<Pick<RecoveryCodeRow, 'id' | 'codeHash'>[]> {
    return manager.query(
      `SELECT id, code_hash AS "codeHash" FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL ORDER BY id`,
      [userId],
    );
  }

  /** Marks the code used if it is the user's and still unused; one UPDATE, so a code works once. */
  async useRecoveryCodeById(manager: EntityManager, userId: string, id: string): Promise<boolean> {
    const [rows]: [Pick<RecoveryCodeRow, 'id'>[], number] = await manager.query(
      `UPDATE recovery_codes SET used_at = now() WHERE id = $1 AND user_id = $2 AND used_at IS NULL RETURNING id`,
      [id, userId],
    );
    return rows.length === 1;
  }
}
