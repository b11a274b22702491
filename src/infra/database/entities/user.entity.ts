import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinTable,
  ManyToMany,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  type Relation,
} from 'typeorm';
import { Role } from './role.entity.js';

@Entity({ name: 'users' })
// The admin list's order, so a page is read from the index before roles are joined.
@Index('IDX_users_created_at_id', ['createdAt', 'id'])
// Trigram indexes for the admin search (pg_trgm): expression and operator-class indexes that
// TypeORM cannot describe, so the migration owns them and the schema comparison skips them.
@Index('IDX_users_email_trgm', { synchronize: false })
@Index('IDX_users_name_trgm', { synchronize: false })
export class User {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  /** Stored trimmed and lower-cased, so one address cannot hold two accounts. */
  @Column({ type: 'varchar', length: 255, unique: true })
  email!: string;

  /** Stored normalised: digits with an optional leading `+`. */
  @Column({ type: 'varchar', length: 16, nullable: true, unique: true })
  mobile!: string | null;

  /** Argon2id PHC string; never leaves the service. */
  @Column({ name: 'password_hash', type: 'varchar', length: 255, select: false })
  passwordHash!: string;

  /** False for an account whose holder never set a password (made by an upstream sign-in). */
  @Column({ name: 'password_set', type: 'boolean', default: true })
  passwordSet!: boolean;

  /** When the address was proved (a verification link, a confirmed change); null until then. */
  @Column({ name: 'email_verified_at', type: 'timestamptz', nullable: true })
  emailVerifiedAt!: Date | null;

  /** Set while the account is disabled: no sign-in of any kind (see src/identity/account-status.ts). */
  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt!: Date | null;

  /** When a disabling ends by itself; null for one that lasts until an administrator enables the account. */
  @Column({ name: 'disabled_until', type: 'timestamptz', nullable: true })
  disabledUntil!: Date | null;

  @Column({ name: 'disabled_reason', type: 'varchar', length: 255, nullable: true })
  disabledReason!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  // One side only (users → roles), so the entity graph has no cycle.
  @ManyToMany(() => Role)
  @JoinTable({
    name: 'user_roles',
    joinColumn: { name: 'user_id', referencedColumnName: 'id' },
    inverseJoinColumn: { name: 'role_id', referencedColumnName: 'id' },
  })
  roles?: Relation<Role>[];
}
