import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * A row of `service_clients` (the one client registry), the one shape the table's statements
 * answer in: every column aliased to its camelCase name (`client_id AS "clientId"`).
 */
export interface ClientRow {
  id: string;
  clientId: string;
  /** The SHA-256 of a confidential client's secret (shown once, never stored); null for a public client. */
  secretHash: string | null;
  name: string;
  type: 'confidential' | 'public';
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: string[];
  firstParty: boolean;
  backchannelLogoutUri: string | null;
  dynamicallyRegistered: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** What a new client is made of (`secretHash` null for a public client). */
export type NewClientRow = Omit<ClientRow, 'id' | 'createdAt' | 'updatedAt'>;

/** What an edit may change: everything but the id, the type, the secret and how it was registered. */
export type ClientChanges = Pick<
  ClientRow,
  'name' | 'redirectUris' | 'postLogoutRedirectUris' | 'grantTypes' | 'firstParty' | 'backchannelLogoutUri'
>;

const COLUMNS = `id, client_id AS "clientId", secret_hash AS "secretHash", name, type,
  redirect_uris AS "redirectUris", post_logout_redirect_uris AS "postLogoutRedirectUris",
  grant_types AS "grantTypes", first_party AS "firstParty", backchannel_logout_uri AS "backchannelLogoutUri",
  dynamically_registered AS "dynamicallyRegistered", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The client registry's statements (`service_clients`). */
@Injectable()
export class ClientsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findByClientId(clientId: string, manager: EntityManager = this.dataSource.manager): Promise<ClientRow | null> {
    const rows: ClientRow[] = await manager.query(`SELECT ${COLUMNS} FROM service_clients WHERE client_id = $1`, [
      clientId,
    ]);
    return rows[0] ?? null;
  }

  /** The row, locked until the transaction ends (an edit, a deletion or a new secret against a parallel one). */
  async findByClientIdForUpdate(manager: EntityManager, clientId: string): Promise<ClientRow | null> {
    const rows: ClientRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM service_clients WHERE client_id = $1 FOR UPDATE`,
      [clientId],
    );
    return rows[0] ?? null;
  }

  /** A page of clients by id, and how many there are. */
  async findPage(limit: number, offset: number): Promise<{ rows: ClientRow[]; total: number }> {
    const rows: ClientRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM service_clients ORDER BY client_id LIMIT $1 OFFSET $2`,
      [limit, offset],
    );
    const [{ total }]: { total: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM service_clients`,
    );
    return { rows, total };
  }

  /** Every redirect URI registered for a public client (the browser apps' origins come from them). */
  async findPublicRedirectUris(): Promise<string[]> {
    const rows: { uri: string }[] = await this.dataSource.query(
      `SELECT DISTINCT unnest(redirect_uris) AS uri FROM service_clients WHERE type = 'public'`,
    );
    return rows.map((row) => row.uri);
  }

  /** Inserts a client; null when the id is taken (nothing is changed then). */
  async insert(client: NewClientRow, manager: EntityManager = this.dataSource.manager): Promise<ClientRow | null> {
    const rows: ClientRow[] = await manager.query(
      `INSERT INTO service_clients (client_id, secret_hash, name, type, redirect_uris, post_logout_redirect_uris,
                                    grant_types, first_party, backchannel_logout_uri, dynamically_registered)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (client_id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        client.clientId,
        client.secretHash,
        client.name,
        client.type,
        client.redirectUris,
        client.postLogoutRedirectUris,
        client.grantTypes,
        client.firstParty,
        client.backchannelLogoutUri,
        client.dynamicallyRegistered,
      ],
    );
    return rows[0] ?? null;
  }

  async update(manager: EntityManager, clientId: string, changes: ClientChanges): Promise<ClientRow> {
    const [row]: ClientRow[] = await manager.query(
      // In a WITH: TypeORM answers a bare UPDATE ... RETURNING as [rows, count].
      `WITH updated AS (
         UPDATE service_clients SET name = $2, redirect_uris = $3, post_logout_redirect_uris = $4, grant_types = $5,
                first_party = $6, backchannel_logout_uri = $7, updated_at = now()
          WHERE client_id = $1
         RETURNING *
       ) SELECT ${COLUMNS} FROM updated`,
      [
        clientId,
        changes.name,
        changes.redirectUris,
        changes.postLogoutRedirectUris,
        changes.grantTypes,
        changes.firstParty,
        changes.backchannelLogoutUri,
      ],
    );
    return row;
  }

  async updateSecretHash(manager: EntityManager, clientId: string, secretHash: string): Promise<void> {
    await manager.query(`UPDATE service_clients SET secret_hash = $2, updated_at = now() WHERE client_id = $1`, [
      clientId,
      secretHash,
    ]);
  }

  async delete(manager: EntityManager, clientId: string): Promise<void> {
    await manager.query(`DELETE FROM service_clients WHERE client_id = $1`, [clientId]);
  }
}
