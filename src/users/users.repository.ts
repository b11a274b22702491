import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { PRINCIPAL_OF_ACTIVE_SESSION_SQL } from '../rbac/principal-query.js';
import { User } from './user.entity.js';

export interface UserWithPassword {
  id: string;
  name: string;
  email: string;
  mobile: string | null;
  passwordHash: string;
}

export interface NewUser {
  name: string;
  email: string;
  mobile: string | null;
  passwordHash: string;
}

export interface PrincipalRow {
  id: string;
  name: string;
  email: string;
  roles: string[];
  permissions: string[];
  session_expires_at: Date;
}

@Injectable()
export class UsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  findByEmailWithPassword(email: string): Promise<UserWithPassword | null> {
    return this.findWithPassword('user.email = :value', email);
  }

  findByMobileWithPassword(mobile: string): Promise<UserWithPassword | null> {
    return this.findWithPassword('user.mobile = :value', mobile);
  }

  /**
   * Replaces a password hash only while it is still the one that was verified, so a rehash on
   * sign-in never overwrites a password changed in the meantime.
   */
  async replacePasswordHash(userId: string, verifiedHash: string, newHash: string): Promise<void> {
    await this.dataSource.getRepository(User).update({ id: userId, passwordHash: verifiedHash }, { passwordHash: newHash });
  }

  findIdByEmail(email: string): Promise<Pick<User, 'id' | 'email' | 'name'> | null> {
    return this.dataSource.getRepository(User).findOne({ where: { email }, select: { id: true, email: true, name: true } });
  }

  /** Inserts the user and links the named role, in the caller's transaction. */
  async insertWithRole(manager: EntityManager, user: NewUser, roleName: string): Promise<User> {
    const [row] = await manager.query(
      `INSERT INTO users (name, email, mobile, password_hash) VALUES ($1, $2, $3, $4)
       RETURNING id, name, email, mobile`,
      [user.name, user.email, user.mobile, user.passwordHash],
    );
    await manager.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = $2`, [row.id, roleName]);
    return row as User;
  }

  /**
   * The caller of a live session, with role names and aggregated permissions, in one round
   * trip; null when the session is revoked or expired, or the user is gone.
   */
  async findPrincipalOfActiveSession(sessionId: string, userId: string): Promise<PrincipalRow | null> {
    const rows: PrincipalRow[] = await this.dataSource.query(PRINCIPAL_OF_ACTIVE_SESSION_SQL, [sessionId, userId]);
    return rows[0] ?? null;
  }

  async findProfile(userId: string): Promise<{ id: string; name: string; email: string; mobile: string | null } | null> {
    return this.dataSource.getRepository(User).findOne({
      where: { id: userId },
      select: { id: true, name: true, email: true, mobile: true },
    });
  }

  private findWithPassword(condition: string, value: string): Promise<UserWithPassword | null> {
    return this.dataSource
      .getRepository(User)
      .createQueryBuilder('user')
      .select(['user.id', 'user.name', 'user.email', 'user.mobile'])
      .addSelect('user.passwordHash')
      .where(condition, { value })
      .getOne();
  }
}
