import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export type UpstreamType = 'oidc' | 'github';

/** A row of `upstream_providers`: every column aliased to its camelCase name. */
export interface UpstreamProviderRow {
  id: string;
  slug: string;
  name: string;
  type: UpstreamType;
  /** The OpenID issuer whose discovery is read; null for GitHub. */
  issuer: string | null;
  clientId: string;
  /** The client secret sealed under the data key ring (`upstream-client-secret`), bound to the id. */
  clientSecretSealed: string;
  scopes: string[];
  trustEmail: boolean;
  allowSignUp: boolean;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export type NewUpstreamProviderRow = Omit<UpstreamProviderRow, 'id' | 'createdAt' | 'updatedAt' | 'clientSecretSealed'>;
export type UpstreamProviderChanges = Partial<
  Pick<UpstreamProviderRow, 'name' | 'issuer' | 'clientId' | 'scopes' | 'trustEmail' | 'allowSignUp' | 'enabled'>
>;

const COLUMNS = `id, slug, name, type, issuer, client_id AS "clientId", client_secret_sealed AS "clientSecretSealed",
  scopes, trust_email AS "trustEmail", allow_sign_up AS "allowSignUp", enabled,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

const CHANGE_COLUMNS: Record<keyof UpstreamProviderChanges, string> = {
  name: 'name',
  issuer: 'issuer',
  clientId: 'client_id',
  scopes: 'scopes',
  trustEmail: 'trust_email',
  allowSignUp: 'allow_sign_up',
  enabled: 'enabled',
};

/** The statements of `upstream_providers`. */
@Injectable()
export class UpstreamProvidersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async list(): Promise<UpstreamProviderRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM upstream_providers ORDER BY slug`);
  }

  async listEnabled(): Promise<UpstreamProviderRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM upstream_providers WHERE enabled ORDER BY name, slug`);
  }

  async findBySlug(
    slug: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<UpstreamProviderRow | null> {
    const rows: UpstreamProviderRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM upstream_providers WHERE slug = $1`,
      [slug],
    );
    return rows[0] ?? null;
  }

  async findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<UpstreamProviderRow | null> {
    const rows: UpstreamProviderRow[] = await manager.query(`SELECT ${COLUMNS} FROM upstream_providers WHERE id = $1`, [
      id,
    ]);
    return rows[0] ?? null;
  }

  /** The row, locked until the transaction ends: a link waits for a parallel disabling, and the reverse. */
  async lockById(manager: EntityManager, id: string): Promise<UpstreamProviderRow | null> {
    const rows: UpstreamProviderRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM upstream_providers WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Inserts the provider with its id given (the sealed secret is bound to it); null when the slug is taken. */
  async insert(
    manager: EntityManager,
    id: string,
    row: NewUpstreamProviderRow,
    clientSecretSealed: string,
  ): Promise<UpstreamProviderRow | null> {
    const rows: UpstreamProviderRow[] = await manager.query(
      `INSERT INTO upstream_providers (id, slug, name, type, issuer, client_id, client_secret_sealed, scopes,
         trust_email, allow_sign_up, enabled)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (slug) DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        id,
        row.slug,
        row.name,
        row.type,
        row.issuer,
        row.clientId,
        clientSecretSealed,
        row.scopes,
        row.trustEmail,
        row.allowSignUp,
        row.enabled,
      ],
    );
    return rows[0] ?? null;
  }

  async update(
    manager: EntityManager,
    id: string,
    changes: UpstreamProviderChanges,
    clientSecretSealed?: string,
  ): Promise<UpstreamProviderRow | null> {
    const params: unknown[] = [id];
    const sets: string[] = [];
    for (const [key, column] of Object.entries(CHANGE_COLUMNS) as [keyof UpstreamProviderChanges, string][]) {
      if (changes[key] === undefined) continue;
      params.push(changes[key]);
      sets.push(`${column} = $${params.length}`);
    }
    if (clientSecretSealed !== undefined) {
      params.push(clientSecretSealed);
      sets.push(`client_secret_sealed = $${params.length}`);
    }
    // In a WITH: TypeORM answers a bare UPDATE ... RETURNING as [rows, count].
    const rows: UpstreamProviderRow[] = await manager.query(
      `WITH changed AS (UPDATE upstream_providers SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1
       RETURNING ${COLUMNS}) SELECT * FROM changed`,
      params,
    );
    return rows[0] ?? null;
  }

  /** Replaces a sealed secret only if it is still the one that was read (a parallel re-seal wins once). */
  async replaceSealedSecret(id: string, previous: string, next: string): Promise<boolean> {
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `UPDATE upstream_providers SET client_secret_sealed = $3 WHERE id = $1 AND client_secret_sealed = $2`,
      [id, previous, next],
    );
    return affected > 0;
  }

  async delete(manager: EntityManager, id: string): Promise<boolean> {
    const [, affected]: [unknown[], number] = await manager.query(`DELETE FROM upstream_providers WHERE id = $1`, [id]);
    return affected > 0;
  }
}
