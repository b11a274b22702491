import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A client of the service, one registry (`src/clients/`): services of the token endpoint and
 * applications that sign people in. Only the SHA-256 of a confidential client's secret is kept:
 * the secret is 32 random bytes, shown once, so it needs no salt or slow hash. A public client has
 * no secret.
 */
@Entity({ name: 'service_clients' })
export class ServiceClient {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_service_clients' })
  id!: string;

  @Index('UQ_service_clients_client_id', { unique: true })
  @Column({ name: 'client_id', type: 'varchar', length: 100 })
  clientId!: string;

  @Column({ name: 'secret_hash', type: 'varchar', length: 64, nullable: true })
  secretHash!: string | null;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'varchar', length: 12, default: 'confidential' })
  type!: string;

  @Column({ name: 'redirect_uris', type: 'text', array: true, default: () => "'{}'" })
  redirectUris!: string[];

  @Column({ name: 'post_logout_redirect_uris', type: 'text', array: true, default: () => "'{}'" })
  postLogoutRedirectUris!: string[];

  @Column({
    name: 'grant_types',
    type: 'text',
    array: true,
    default: () => "'{authorization_code,refresh_token}'",
  })
  grantTypes!: string[];

  @Column({ name: 'first_party', type: 'boolean', default: false })
  firstParty!: boolean;

  @Column({ name: 'backchannel_logout_uri', type: 'varchar', length: 2000, nullable: true })
  backchannelLogoutUri!: string | null;

  @Column({ name: 'dynamically_registered', type: 'boolean', default: false })
  dynamicallyRegistered!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
