import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A service allowed to introspect tokens (`create-client`). Only the SHA-256 of its secret is
 * kept: the secret is 32 random bytes, shown once, so it needs no salt or slow hash.
 */
@Entity({ name: 'service_clients' })
export class ServiceClient {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_service_clients' })
  id!: string;

  @Index('UQ_service_clients_client_id', { unique: true })
  @Column({ name: 'client_id', type: 'varchar', length: 100 })
  clientId!: string;

  @Column({ name: 'secret_hash', type: 'varchar', length: 64 })
  secretHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
