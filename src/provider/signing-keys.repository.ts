import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** A row of `provider_signing_keys`. */
export interface ProviderKeyRow {
  kid: string;
  algorithm: string;
  privateKeySealed: string;
  publicKeyPem: string;
  createdAt: Date;
  retiredAt: Date | null;
}

const COLUMNS = `kid, algorithm, private_key_sealed AS "privateKeySealed", public_key_pem AS "publicKeyPem",
  created_at AS "createdAt", retired_at AS "retiredAt"`;

/** The ID-token keys: one current key per algorithm (a unique partial index), retired ones kept a while. */
@Injectable()
export class ProviderSigningKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The current key and the keys retired after `retiredSince`, current first. */
  findPublished(algorithm: string, retiredSince: Date): Promise<ProviderKeyRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM provider_signing_keys
        WHERE algorithm = $1 AND (retired_at IS NULL OR retired_at > $2)
        ORDER BY retired_at DESC NULLS FIRST`,
      [algorithm, retiredSince],
    );
  }

  /**
   * Inserts a first current key unless one exists (two instances starting at once: one wins, both
   * then read the winner's).
   */
  async insertIfNoCurrent(row: Pick<ProviderKeyRow, 'kid' | 'algorithm' | 'privateKeySealed' | 'publicKeyPem'>) {
    await this.dataSource.query(
      `INSERT INTO provider_signing_keys (kid, algorithm, private_key_sealed, public_key_pem)
       VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [row.kid, row.algorithm, row.privateKeySealed, row.publicKeyPem],
    );
  }

  /** Every key, retired ones included: what `rotate-data-key` re-seals. */
  findAll(): Promise<Pick<ProviderKeyRow, 'kid' | 'privateKeySealed'>[]> {
    return this.dataSource.query(
      `SELECT kid, private_key_sealed AS "privateKeySealed" FROM provider_signing_keys ORDER BY created_at`,
    );
  }

  /** Replaces a key's sealed private half if it is still `previous` (compare-and-set); answers whether it did. */
  async replaceSealed(kid: string, previous: string, next: string): Promise<boolean> {
    const [, affected]: [unknown, number] = await this.dataSource.query(
      `UPDATE provider_signing_keys SET private_key_sealed = $3 WHERE kid = $1 AND private_key_sealed = $2`,
      [kid, previous, next],
    );
    return affected === 1;
  }

  /** Retires the current key and makes the new one current, in the caller's transaction. */
  async rotate(
    manager: EntityManager,
    row: Pick<ProviderKeyRow, 'kid' | 'algorithm' | 'privateKeySealed' | 'publicKeyPem'>,
  ): Promise<void> {
    await manager.query(
      `UPDATE provider_signing_keys SET retired_at = now() WHERE algorithm = $1 AND retired_at IS NULL`,
      [row.algorithm],
    );
    await manager.query(
      `INSERT INTO provider_signing_keys (kid, algorithm, private_key_sealed, public_key_pem) VALUES ($1, $2, $3, $4)`,
      [row.kid, row.algorithm, row.privateKeySealed, row.publicKeyPem],
    );
  }
}
