import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Consecutive failed password logins of one account (`user:<id>`), or of an identifier that
 * names no account (`email:<sha256>`, `mobile:<sha256>`), so unknown accounts lock out exactly
 * like known ones. Kept in PostgreSQL so every instance sees it and no Redis outage loses it.
 */
@Entity({ name: 'login_failures' })
export class LoginFailure {
  @PrimaryColumn({ type: 'varchar', length: 100, primaryKeyConstraintName: 'PK_login_failures' })
  subject!: string;

  /** Attempts since the last success; counted before the password is checked (see LoginLockout). */
  @Column({ type: 'integer', default: 0 })
  failures!: number;

  /** Set when `failures` reached LOCKOUT_THRESHOLD; until then no password login is checked. */
  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil!: Date | null;

  /** A count older than LOCKOUT_SECONDS starts over, so old mistakes do not add up forever. */
  @Column({ name: 'last_attempt_at', type: 'timestamptz' })
  lastAttemptAt!: Date;
}
