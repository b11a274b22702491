import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * A row of `service_clients`, the one shape the table's statements answer in: every column aliased
 * to its camelCase name (`client_id AS "clientId"`).
 */
export interface ServiceClientRow {
  id: string;
  clientId: string;
  /** The SHA-256 of the secret, which is shown once and never stored. */
  secretHash: string;
  createdAt: Date;
}

@Injectable()
export class ServiceClientsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findSecretHashByClientId(clientId: string): Promise<string | null> {
    const rows: Pick<ServiceClientRow, 'secretHash'>[] = await this.dataSource.query(
      `SELECT secret_hash AS "secretHash" FROM service_clients WHERE client_id = $1`,
      [clientId],
    );
    return rows[0]?.secretHash ?? null;
  }

  /** Adds a client, or gives an existing one a new secret (the old one stops working). */
  /** A new client; false (and nothing written) when the id exists already. */
  async insert(clientId: string, secretHash: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO service_clients (client_id, secret_hash) VALUES ($1, $2)
       ON CONFLICT (client_id) DO NOTHING RETURNING client_id`,
      [clientId, secretHash],
    );
    return rows.length === 1;
  }

  /** A new secret for an existing client; false when there is no such client. */
  async replaceSecret(clientId: string, secretHash: string): Promise<boolean> {
    const [rows]: [unknown[], number] = await this.dataSource.query(
      `UPDATE service_clients SET secret_hash = $2 WHERE client_id = $1 RETURNING client_id`,
      [clientId, secretHash],
    );
    return rows.length === 1;
  }
}
