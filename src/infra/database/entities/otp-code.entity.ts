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

/** `reauth`: a code to the account's own mobile that proves presence inside a session. */
export type OtpPurpose = 'login' | '2fa' | 'reauth';
export type OtpEndReason = 'used' | 'replaced' | 'burned' | 'undelivered';

/**
 * One one-time password: only its keyed hash is stored, bound to the mobile it was sent to and,
 * for two-factor, to the temp token it belongs to. A row is written for every send-otp request,
 * also for mobiles without an account (no SMS goes out then), so cooldowns and caps answer the
 * same whether or not a number is registered.
 */
@Entity({ name: 'otp_codes' })
@Index('IDX_otp_codes_mobile_purpose_created', ['mobile', 'purpose', 'createdAt'])
@Index('IDX_otp_codes_client_ip_created', ['clientIp', 'createdAt'])
export class OtpCode {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_otp_codes' })
  id!: string;

  @Column({ type: 'varchar', length: 16 })
  purpose!: OtpPurpose;

  @Column({ type: 'varchar', length: 16 })
  mobile!: string;

  /** The account the code signs in; null when the mobile belongs to nobody. */
  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_otp_codes_user_id' })
  user?: Relation<User>;

  /** For two-factor: the `jti` of the temp token this code completes. */
  @Index('UQ_otp_codes_temp_token_jti', { unique: true })
  @Column({ name: 'temp_token_jti', type: 'varchar', length: 64, nullable: true })
  tempTokenJti!: string | null;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash!: string;

  /** Wrong codes entered against this OTP (for login, carried over from the code it replaced). */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'client_ip', type: 'varchar', length: 64, nullable: true })
  clientIp!: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;

  @Column({ name: 'end_reason', type: 'varchar', length: 16, nullable: true })
  endReason!: OtpEndReason | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
