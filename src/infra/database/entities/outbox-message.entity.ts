import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** `http`: a form POSTed to a URL a client registered (back-channel logout), its body made when it is sent. */
export type OutboxChannel = 'sms' | 'mail' | 'http';
/** `dropped`: a stand-in queued for a mobile or address of nobody, so both cost the request the same. */
export type OutboxStatus = 'pending' | 'sent' | 'failed' | 'dropped';
/** What the message is for: plain facts for the audit trail, never its content. */
export type OutboxKind =
  | 'otp.login'
  | '2fa'
  | 'reauth'
  | 'password_reset'
  | 'notice'
  | 'email_change'
  | 'mobile_change'
  | 'email_verification'
  | 'email_code'
  | 'backchannel_logout'
  | 'invitation';

/**
 * One outgoing SMS or mail, queued in the request's transaction (or right after it) and sent by
 * the process after the response. The payload (recipient and text, which hold codes and reset
 * links) is stored encrypted, and wiped once the message is delivered or given up.
 */
@Entity({ name: 'outbox_messages' })
@Index('IDX_outbox_messages_status_next_attempt', ['status', 'nextAttemptAt'])
export class OutboxMessage {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'PK_outbox_messages' })
  id!: string;

  @Column({ type: 'varchar', length: 8 })
  channel!: OutboxChannel;

  @Column({ type: 'varchar', length: 32 })
  kind!: OutboxKind;

  /** The account the message concerns, as a plain value (like the audit trail's ids). */
  @Index('IDX_outbox_messages_user_id')
  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  /**
   * The instance that queued it: that instance sends it at once, others only once it has been
   * overdue for a while (its sender stopped), so a message goes out through the instance that
   * queued it whenever that instance is alive.
   */
  @Column({ type: 'uuid' })
  origin!: string;

  /** AES-256-GCM of `{to, subject?, text}`: nonce, tag, ciphertext; null once finished. */
  @Column({ type: 'bytea', nullable: true })
  payload!: Buffer | null;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status!: OutboxStatus;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** When the message may next be tried; a claim pushes it out by a lease, so a crashed sender's rows come back. */
  @Column({ name: 'next_attempt_at', type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt!: Date;

  /** Why the last attempt failed (a status or an error name, never content). */
  @Column({ name: 'last_error', type: 'varchar', length: 200, nullable: true })
  lastError!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}
