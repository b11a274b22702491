import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
  type Relation,
} from 'typeorm';
import { User } from './user.entity.js';

export type SessionRevocationReason =
  | 'logout'
  | 'refresh_reuse'
  | 'password_reset'
  | 'admin'
  | 'user_revoked'
  | 'identity_change'
  | 'second_factor_reset'
  | 'disabled'
  | 'address_proof'
  | 'code_reuse';

/**
 * One login. Refresh tokens rotate inside it: the row holds the generation of the only refresh
 * token that may still be used, and that token's SHA-256 (never the token).
 */
@Entity({ name: 'sessions' })
export class Session {
  @PrimaryColumn('uuid')
  id!: string;

  @Index('IDX_sessions_user_id')
  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_sessions_user_id' })
  user?: Relation<User>;

  /** Counts rotations; a refresh token of an older generation is a replay. */
  @Column({ type: 'integer', default: 0 })
  generation!: number;

  @Column({ name: 'refresh_token_hash', type: 'varchar', length: 64 })
  refreshTokenHash!: string;

  /** Absolute end of the session (SESSION_MAX_AGE after login); rotation stops there. */
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'revoked_reason', type: 'varchar', length: 32, nullable: true })
  revokedReason!: SessionRevocationReason | null;

  @Column({ name: 'ip', type: 'varchar', length: 64, nullable: true })
  ip!: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 512, nullable: true })
  userAgent!: string | null;

  /** When the holder last proved presence: the sign-in, or a re-authentication (the tokens' `auth_time`). */
  @Column({ name: 'auth_time', type: 'timestamptz', default: () => 'now()' })
  authTime!: Date;

  /** How they proved it, as RFC 8176 values (the tokens' `amr`): `pwd`, `otp`, `sms`, `hwk`, `mfa`. */
  @Column({ name: 'amr', type: 'text', array: true, default: () => "'{pwd}'" })
  amr!: string[];

  /** The client the session was issued to through the OpenID provider; null for the API's own sign-ins. */
  @Column({ name: 'client_id', type: 'varchar', length: 100, nullable: true })
  clientId!: string | null;

  /** The browser sign-in at the provider this client's session came from: ending it ends this one. */
  @Index('IDX_sessions_parent_session_id')
  @Column({ name: 'parent_session_id', type: 'uuid', nullable: true })
  parentSessionId!: string | null;

  /** The scopes granted to the client (space-separated). */
  @Column({ name: 'scope', type: 'varchar', length: 512, nullable: true })
  scope!: string | null;

  /** The access tokens' `aud` when the client asked for a resource (RFC 8707); null: ISSUER. */
  @Column({ name: 'audience', type: 'varchar', length: 255, nullable: true })
  audience!: string | null;

  /** When the session last rotated its refresh token (set on refresh, not on every request). */
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
