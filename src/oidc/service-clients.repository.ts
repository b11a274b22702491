import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ServiceClient } from '../infra/database/entities/service-client.entity.js';

@Injectable()
export class ServiceClientsRepository {
  constructor(private readonly dataSource: DataSource) {}

  findSecretHashByClientId(clientId: string): Promise<string | null> {
    return this.dataSource
      .getRepository(ServiceClient)
      .findOne({ where: { clientId }, select: { secretHash: true } })
      .then((client) => client?.secretHash ?? null);
  }

  /** Adds a client, or gives an existing one a new secret (the old one stops working). */
  async upsert(clientId: string, secretHash: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO service_clients (client_id, secret_hash) VALUES ($1, $2)
       ON CONFLICT (client_id) DO UPDATE SET secret_hash = EXCLUDED.secret_hash`,
      [clientId, secretHash],
    );
  }
}
