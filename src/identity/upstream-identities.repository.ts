import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * A row of `upstream_identities`: an identity at an upstream provider linked to an account, keyed
 * by (provider, upstream `sub`), never by an address. `email` is what the upstream said when it
 * was linked, for the holder's list only; nothing signs in by it.
 */
export interface UpstreamIdentityRow {
  id: string;
  userId: string;
  providerId: string;
  subject: string;
  email: string | null;
  linkedAt: Date;
  lastUsedAt: Date | null;
}

/** An identity as the holder's list shows it, with its provider's slug and whether it is enabled. */
export type UpstreamIdentityListing = UpstreamIdentityRow & { providerSlug: string; providerEnabled: boolean };

const COLUMNS = `i.id, i.user_id AS "userId", i.provider_id AS "providerId", i.subject, i.email,
  i.linked_at AS "linkedAt", i.last_used_at AS "lastUsedAt"`;

/**
 * The statements of `upstream_identities`. The table belongs to the account record (this folder)
 * because the first proof of an address removes the identities linked before it (account's
 * AddressProofService), and the upstream sign-in reads and links them.
 */
@Injectable()
export class UpstreamIdentitiesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findBySubject(
    providerId: string,
    subject: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<UpstreamIdentityRow | null> {
    const rows: UpstreamIdentityRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM upstream_identities i WHERE i.provider_id = $1 AND i.subject = $2`,
      [providerId, subject],
    );
    return rows[0] ?? null;
  }

  /**
   * Links the identity to the account, in the caller's transaction; `linked` false when the pair
   * is already linked (to this account or another: the caller reads which).
   */
  async link(
    manager: EntityManager,
    identity: { userId: string; providerId: string; subject: string; email: string | null },
  ): Promise<UpstreamIdentityRow | null> {
    const rows: UpstreamIdentityRow[] = await manager.query(
      `INSERT INTO upstream_identities AS i (user_id, provider_id, subject, email, last_used_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (provider_id, subject) DO NOTHING
       RETURNING ${COLUMNS}`,
      [identity.userId, identity.providerId, identity.subject, identity.email],
    );
    return rows[0] ?? null;
  }

  async touch(identityId: string): Promise<void> {
    await this.dataSource.query(`UPDATE upstream_identities SET last_used_at = now() WHERE id = $1`, [identityId]);
  }

  async listOfUser(
    userId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<UpstreamIdentityListing[]> {
    return manager.query(
      `SELECT ${COLUMNS}, p.slug AS "providerSlug", p.enabled AS "providerEnabled"
         FROM upstream_identities i JOIN upstream_providers p ON p.id = i.provider_id
        WHERE i.user_id = $1 ORDER BY i.linked_at, i.id`,
      [userId],
    );
  }

  /** Removes one identity of the account; null when the account has no such identity. */
  async unlink(manager: EntityManager, userId: string, identityId: string): Promise<UpstreamIdentityRow | null> {
    // In a WITH: TypeORM answers a bare DELETE ... RETURNING as [rows, count].
    const rows: UpstreamIdentityRow[] = await manager.query(
      `WITH gone AS (DELETE FROM upstream_identities i WHERE i.id = $1 AND i.user_id = $2 RETURNING ${COLUMNS})
       SELECT * FROM gone`,
      [identityId, userId],
    );
    return rows[0] ?? null;
  }

  /** Every identity of the account goes (the first proof of its address); how many there were. */
  async deleteAllOfUser(manager: EntityManager, userId: string): Promise<number> {
    const [, affected]: [unknown[], number] = await manager.query(
      `DELETE FROM upstream_identities WHERE user_id = $1`,
      [userId],
    );
    return affected;
  }
}
