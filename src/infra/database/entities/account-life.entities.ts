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

/**
 * A verification link's token, stored as its SHA-256 only; single use, and bound to the address
 * it was sent to, so a link mailed before an email change verifies nothing after it.
 */
@Entity({ name: 'email_verification_tokens' })
export class EmailVerificationToken {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_email_verification_tokens' })
  id!: string;

  @Index('IDX_email_verification_tokens_user_id')
  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_email_verification_tokens_user_id' })
  user?: Relation<User>;

  @Column({ type: 'varchar', length: 255 })
  email!: string;

  @Index('UQ_email_verification_tokens_token_hash', { unique: true })
  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

/**
 * A sign-in code mailed to an address: its keyed hash only. A row is written for every request,
 * also for addresses without an account (no mail goes out then, and `user_id` is null), so the
 * work and the answer are the same whether or not an address is registered.
 */
@Entity({ name: 'email_codes' })
@Index('IDX_email_codes_email_created', ['email', 'createdAt'])
export class EmailCode {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_email_codes' })
  id!: string;

  @Column({ type: 'varchar', length: 255 })
  email!: string;

  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_email_codes_user_id' })
  user?: Relation<User>;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash!: string;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'client_ip', type: 'varchar', length: 64, nullable: true })
  clientIp!: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;

  @Column({ name: 'end_reason', type: 'varchar', length: 16, nullable: true })
  endReason!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
