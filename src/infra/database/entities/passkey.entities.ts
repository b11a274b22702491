import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  type Relation,
} from 'typeorm';
import { User } from './user.entity.js';

/** A passkey (WebAuthn credential) of an account: its public key and signature counter, never a secret. */
@Entity({ name: 'passkeys' })
export class Passkey {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_passkeys' })
  id!: string;

  @Index('IDX_passkeys_user_id')
  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_passkeys_user_id' })
  user?: Relation<User>;

  /** The credential id, base64url, as the authenticator and the browser name it. */
  @Index('UQ_passkeys_credential_id', { unique: true })
  @Column({ name: 'credential_id', type: 'varchar', length: 1400 })
  credentialId!: string;

  /** The COSE public key the authenticator made. */
  @Column({ name: 'public_key', type: 'bytea' })
  publicKey!: Buffer;

  /** The last signature counter seen; a later assertion must carry a greater one (or both zero). */
  @Column({ type: 'bigint' })
  counter!: string;

  /** Comma-separated transports the browser reported (`internal`, `hybrid`, `usb`…). */
  @Column({ type: 'varchar', length: 255 })
  transports!: string;

  /** `singleDevice` or `multiDevice` (a synced passkey). */
  @Column({ name: 'device_type', type: 'varchar', length: 16 })
  deviceType!: string;

  @Column({ name: 'backed_up', type: 'boolean' })
  backedUp!: boolean;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}

/** The challenge of one WebAuthn ceremony: its SHA-256 only, single use, five minutes. */
@Entity({ name: 'webauthn_challenges' })
export class WebauthnChallenge {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_webauthn_challenges' })
  id!: string;

  @Index('UQ_webauthn_challenges_challenge_hash', { unique: true })
  @Column({ name: 'challenge_hash', type: 'varchar', length: 64 })
  challengeHash!: string;

  /** `registration`, `sign-in`, `second-factor` or `reauthentication`. */
  @Column({ type: 'varchar', length: 16 })
  ceremony!: string;

  /** The account the ceremony is for, where it names one (a discoverable sign-in names none). */
  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_webauthn_challenges_user_id' })
  user?: Relation<User>;

  @Index('IDX_webauthn_challenges_expires_at')
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
