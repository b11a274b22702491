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
 * What a code is for. `sms_sign_in`: send-otp / verify-otp; `second_factor`: the challenge of a
 * temp token (its SMS code, or the row that counts the answers of its app, recovery code or
 * passkey); `email_sign_in`: sign-in by a mailed code; `reauthentication`: an SMS code proving
 * presence inside a session; `mobile_change`: the code that proves a new mobile. A new purpose
 * (an invitation, a link proof) is a new value here and in one-time-codes/code-purposes.ts.
 */
export type CodePurpose = 'sms_sign_in' | 'second_factor' | 'email_sign_in' | 'reauthentication' | 'mobile_change';
export type CodeEndReason = 'used' | 'replaced' | 'burned';

/**
 * One one-time code, of any purpose: only its keyed hash is stored, bound to what it proves (the
 * mobile or address it was sent to, a temp token, a session, a pending change). A row is written
 * for every request, also for recipients without an account (nothing is sent then, and `user_id`
 * is null), so limits and answers are the same whether or not a recipient is registered.
 */
@Entity({ name: 'one_time_codes' })
@Index('IDX_one_time_codes_recipient_purpose_created', ['recipient', 'purpose', 'createdAt'])
@Index('IDX_one_time_codes_client_ip_created', ['clientIp', 'createdAt'])
@Index('IDX_one_time_codes_user_purpose_created', ['userId', 'purpose', 'createdAt'])
@Index('UQ_one_time_codes_purpose_reference', ['purpose', 'reference'], { unique: true })
export class OneTimeCode {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_one_time_codes' })
  id!: string;

  @Column({ type: 'varchar', length: 32 })
  purpose!: CodePurpose;

  /** The mobile or address the code was sent to; null when none is (a second factor without SMS). */
  @Column({ type: 'varchar', length: 255, nullable: true })
  recipient!: string | null;

  /** The account the code proves; null when the recipient belongs to nobody. */
  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_one_time_codes_user_id' })
  user?: Relation<User>;

  /** What the code completes: the `jti` of a temp token, the id of a pending change. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  reference!: string | null;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash!: string;

  /** Wrong answers (for sign-in codes, carried over from the code it replaced). */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** Times the code was texted on request (a second-factor challenge's `send-2fa`), each a new code in this row. */
  @Column({ name: 'asked_sends', type: 'integer', default: 0 })
  askedSends!: number;

  @Column({ name: 'client_ip', type: 'varchar', length: 64, nullable: true })
  clientIp!: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;

  @Column({ name: 'end_reason', type: 'varchar', length: 16, nullable: true })
  endReason!: CodeEndReason | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
