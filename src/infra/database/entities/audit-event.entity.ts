import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One authentication or authorization event. Never holds a secret: no password, code, token or
 * hash, only who did what to whom, from where and when. Ids are kept as plain values (no foreign
 * keys) so the trail outlives deleted users and roles.
 */
@Entity({ name: 'audit_events' })
@Index('IDX_audit_events_created_at', ['createdAt'])
@Index('IDX_audit_events_type_created_at', ['type', 'createdAt'])
@Index('IDX_audit_events_actor_created_at', ['actorId', 'createdAt'])
@Index('IDX_audit_events_target_created_at', ['targetId', 'createdAt'])
export class AuditEvent {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_audit_events' })
  id!: string;

  @Column({ type: 'varchar', length: 64 })
  type!: string;

  /** Who acted: the signed-in user, or for sign-in events the account concerned (when known). */
  @Column({ name: 'actor_id', type: 'uuid', nullable: true })
  actorId!: string | null;

  @Column({ name: 'target_type', type: 'varchar', length: 32, nullable: true })
  targetType!: string | null;

  @Column({ name: 'target_id', type: 'varchar', length: 64, nullable: true })
  targetId!: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip!: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 512, nullable: true })
  userAgent!: string | null;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  details!: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
