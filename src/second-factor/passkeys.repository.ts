import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DataSource } from 'typeorm';

/** The ceremonies a WebAuthn challenge is made for; one never answers another. */
export type WebauthnCeremony = 'registration' | 'sign-in' | 'second-factor' | 'reauthentication';

/**
 * A row of `passkeys`, the one shape the table's statements answer in: every column aliased to its
 * camelCase name (`credential_id AS "credentialId"`). The statements turn the bigint counter into
 * a number (a signature counter has 32 bits) and the comma-separated transports into a list.
 */
export interface PasskeyRow {
  id: string;
  userId: string;
  /** The credential id, base64url, as the authenticator and the browser name it. */
  credentialId: string;
  /** The COSE public key the authenticator made. */
  publicKey: Buffer;
  counter: number;
  transports: string[];
  /** `singleDevice` or `multiDevice` (a synced passkey). */
  deviceType: string;
  backedUp: boolean;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface NewPasskey {
  userId: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
  name: string;
}

/** A row of `webauthn_challenges`, in the same way: a challenge is stored as its SHA-256 only. */
export interface WebauthnChallengeRow {
  id: string;
  challengeHash: string;
  ceremony: WebauthnCeremony;
  /** The account the ceremony is for, where it names one (a discoverable sign-in names none). */
  userId: string | null;
  expiresAt: Date;
  createdAt: Date;
}

// float8 holds every 32-bit counter exactly, and pg answers it as a number (a bigint as a string);
// string_to_array answers no element for the empty string.
const PASSKEY_COLUMNS = `id, user_id AS "userId", credential_id AS "credentialId", public_key AS "publicKey",
  counter::float8 AS counter, string_to_array(transports, ',') AS transports, device_type AS "deviceType",
  backed_up AS "backedUp", name, created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

/** Every query on the passkey and WebAuthn-challenge tables. */
@Injectable()
export class PasskeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  listOfUser(userId: string): Promise<PasskeyRow[]> {
    return this.dataSource.query(`SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE user_id = $1 ORDER BY created_at, id`, [
      userId,
    ]);
  }

  async hasPasskey(userId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM passkeys WHERE user_id = $1 LIMIT 1`, [userId]);
    return rows.length > 0;
  }

  async findByCredentialId(credentialId: string): Promise<PasskeyRow | null> {
    const [row]: PasskeyRow[] = await this.dataSource.query(
      `SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE credential_id = $1`,
      [credentialId],
    );
    return row ?? null;
  }

  /** Null when the credential is already registered (to this account or another). */
  async insert(passkey: NewPasskey): Promise<PasskeyRow | null> {
    const [row]: PasskeyRow[] = await this.dataSource.query(
      `INSERT INTO passkeys (user_id, credential_id, public_key, counter, transports, device_type, backed_up, name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (credential_id) DO NOTHING
       RETURNING ${PASSKEY_COLUMNS}`,
      [
        passkey.userId,
        passkey.credentialId,
        Buffer.from(passkey.publicKey),
        passkey.counter,
        passkey.transports.join(','),
        passkey.deviceType,
        passkey.backedUp,
        passkey.name,
      ],
    );
    return row ?? null;
  }

  /** Removes every passkey of the user in the caller's transaction; answers how many went. */
  async deleteAllOfUser(manager: EntityManager, userId: string): Promise<number> {
    const rows: unknown[] = await manager.query(`DELETE FROM passkeys WHERE user_id = $1 RETURNING id`, [userId]);
    return rows.length;
  }

  async rename(userId: string, id: string, name: string): Promise<PasskeyRow | null> {
    const [rows]: [PasskeyRow[], number] = await this.dataSource.query(
      `UPDATE passkeys SET name = $3 WHERE id = $1 AND user_id = $2 RETURNING ${PASSKEY_COLUMNS}`,
      [id, userId, name],
    );
    return rows[0] ?? null;
  }

  async delete(userId: string, id: string): Promise<boolean> {
    const [rows]: [Pick<PasskeyRow, 'id'>[], number] = await this.dataSource.query(
      `DELETE FROM passkeys WHERE id = $1 AND user_id = $2 RETURNING id`,
      [id, userId],
    );
    return rows.length === 1;
  }

  /**
   * Records a use: the new counter only if it moves forward (or both stay zero, as synced passkeys
   * report), in one UPDATE, so of two assertions carrying one counter only one passes. False when
   * the counter did not move forward.
   */
  async recordUse(id: string, previousCounter: number, newCounter: number): Promise<boolean> {
    const [rows]: [Pick<PasskeyRow, 'id'>[], number] = await this.dataSource.query(
      `UPDATE passkeys SET counter = $3, last_used_at = now()
        WHERE id = $1 AND counter = $2 AND ($3 > $2 OR ($3 = 0 AND $2 = 0))
        RETURNING id`,
      [id, previousCounter, newCounter],
    );
    return rows.length === 1;
  }

  /** Stores a new challenge (its hash) and drops expired ones. */
  async insertChallenge(
    challenge: Pick<WebauthnChallengeRow, 'challengeHash' | 'ceremony' | 'userId' | 'expiresAt'>,
  ): Promise<void> {
    await this.dataSource.query(`DELETE FROM webauthn_challenges WHERE expires_at < now()`);
    await this.dataSource.query(
      `INSERT INTO webauthn_challenges (challenge_hash, ceremony, user_id, expires_at) VALUES ($1, $2, $3, $4)`,
      [challenge.challengeHash, challenge.ceremony, challenge.userId, challenge.expiresAt],
    );
  }

  /**
   * Uses a live challenge of this ceremony: one DELETE, so of two verifications of one challenge
   * exactly one gets its row. Undefined when there is none (unknown, expired, used or another
   * ceremony's); else the account it was made for, or null.
   */
  async consumeChallenge(
    challengeHash: string,
    ceremony: WebauthnCeremony,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Pick<WebauthnChallengeRow, 'userId'> | undefined> {
    const [rows]: [Pick<WebauthnChallengeRow, 'userId'>[], number] = await manager.query(
      `DELETE FROM webauthn_challenges WHERE challenge_hash = $1 AND ceremony = $2 AND expires_at > now()
        RETURNING user_id AS "userId"`,
      [challengeHash, ceremony],
    );
    return rows[0];
  }
}
