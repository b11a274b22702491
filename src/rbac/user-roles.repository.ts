import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** A role as a user's set names it. */
export interface HeldRoleRow {
  id: string;
  name: string;
}

/**
 * The `user_roles` table: which roles each account holds. Every write of an assignment is here,
 * whoever makes it (registration, an administrator, the CLI, the seed); each statement runs in the
 * caller's transaction.
 */
@Injectable()
export class UserRolesRepository {
  /** Gives the user the role; false when they already held it. */
  async grant(manager: EntityManager, userId: string, roleId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING user_id`,
      [userId, roleId],
    );
    return rows.length > 0;
  }

  /** Gives the user the role of that name (a new account's `user`, a seeded account's roles). */
  async grantByName(manager: EntityManager, userId: string, roleName: string): Promise<void> {
    await manager.query(
      `INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = $2 ON CONFLICT DO NOTHING`,
      [userId, roleName],
    );
  }

  /**
   * The user's roles, each kept from deletion until the caller's transaction ends: a role deleted
   * meanwhile is waited for and left out, instead of being written back into the user's set.
   */
  rolesOf(manager: EntityManager, userId: string): Promise<HeldRoleRow[]> {
    return manager.query(
      `SELECT r.id, r.name FROM user_roles ur JOIN roles r ON r.id = ur.role_id WHERE ur.user_id = $1 FOR KEY SHARE OF r`,
      [userId],
    );
  }

  /** The user's role set becomes exactly these (existing) role ids. */
  async setRoles(manager: EntityManager, userId: string, roleIds: string[]): Promise<void> {
    await manager.query(`DELETE FROM user_roles WHERE user_id = $1`, [userId]);
    if (roleIds.length > 0) {
      await manager.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, unnest($2::uuid[])`, [userId, roleIds]);
    }
  }

  /** Holders of the role other than `userId` that are enabled now. */
  async countOtherEnabledHolders(manager: EntityManager, userId: string, roleName: string): Promise<number> {
    const [{ count }]: { count: number }[] = await manager.query(
      `SELECT count(*)::int AS count
         FROM user_roles ur JOIN roles r ON r.id = ur.role_id JOIN users u ON u.id = ur.user_id
        WHERE r.name = $1 AND u.id <> $2
          AND (u.disabled_at IS NULL OR (u.disabled_until IS NOT NULL AND u.disabled_until <= now()))`,
      [roleName, userId],
    );
    return count;
  }

  /**
   * Whether the user holds the role and no other enabled account does: the last administrator,
   * whom deleting or disabling would leave the service without one.
   */
  async isLastEnabledHolder(manager: EntityManager, userId: string, roleName: string): Promise<boolean> {
    const holds = (await this.rolesOf(manager, userId)).some((role) => role.name === roleName);
    return holds && (await this.countOtherEnabledHolders(manager, userId, roleName)) === 0;
  }
}
