import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  type Relation,
} from 'typeorm';
import { User } from './user.entity.js';

/** An account's authenticator app (RFC 6238). The secret is stored only encrypted (AES-256-GCM). */
@Entity({ name: 'totp_authenticators' })
export class TotpAuthenticator {
  @PrimaryColumn({ name: 'user_id', type: 'uuid', primaryKeyConstraintName: 'PK_totp_authenticators' })
  userId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_totp_authenticators_user_id' })
  user?: Relation<User>;

  @Column({ name: 'secret_ciphertext', type: 'varchar', length: 255 })
  secretCiphertext!: string;

  /** Null while enrolment waits for its first code; the app is on once this is set. */
  @Column({ name: 'confirmed_at', type: 'timestamptz', nullable: true })
  confirmedAt!: Date | null;

  /** The time step of the last accepted code: a code of that step or an earlier one is a replay. */
  @Column({ name: 'last_used_step', type: 'integer', nullable: true })
  lastUsedStep!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** One single-use recovery code: its Argon2id hash only (a keyed hash for codes made before). */
@Entity({ name: 'recovery_codes' })
export class RecoveryCode {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_recovery_codes' })
  id!: string;

  @Index('IDX_recovery_codes_user_id')
  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_recovery_codes_user_id' })
  user?: Relation<User>;

  @Column({ name: 'code_hash', type: 'varchar', length: 255 })
  codeHash!: string;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

export type AccountChangeKind = 'email' | 'mobile';

/**
 * A change of email or mobile that waits for proof of the new address: a link (email, its token's
 * keyed hash here) or an SMS code (mobile, a `mobile_change` row of one_time_codes whose reference
 * is this request). It applies when that proof comes back, through the one identity-change operation.
 */
@Entity({ name: 'account_change_requests' })
@Index('IDX_account_change_requests_user_kind', ['userId', 'kind'])
export class AccountChangeRequest {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_account_change_requests' })
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_account_change_requests_user_id' })
  user?: Relation<User>;

  @Column({ type: 'varchar', length: 16 })
  kind!: AccountChangeKind;

  @Column({ name: 'new_value', type: 'varchar', length: 255 })
  newValue!: string;

  /** An email change's link token, as its keyed hash; null for a mobile change (its code is in one_time_codes). */
  @Index('UQ_account_change_requests_secret_hash', { unique: true })
  @Column({ name: 'secret_hash', type: 'varchar', length: 64, nullable: true })
  secretHash!: string | null;

  /** The session that asked: it stays signed in when the change applies, as the holder made it. */
  @Index('IDX_account_change_requests_session_id')
  @Column({ name: 'session_id', type: 'uuid', nullable: true })
  sessionId!: string | null;

  /** The SHA-256 of the cancel link's token (an email change's notice to the old address). */
  @Index('UQ_account_change_requests_cancel_hash', { unique: true })
  @Column({ name: 'cancel_hash', type: 'varchar', length: 64, nullable: true })
  cancelHash!: string | null;

  @Column({ name: 'client_ip', type: 'varchar', length: 64, nullable: true })
  clientIp!: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
