import type { EntityManager } from 'typeorm';
import type { UserRow } from '../../identity/index.js';
import type { PermissionRow, RoleRow } from '../roles.repository.js';
import type { PermissionSeed, RoleSeed } from './seed-data.js';

/**
 * The seed's statements. Each takes the manager of the seed's transaction (or the data source's
 * own), so the seed can run inside the application or beside it (the CLI, a test set-up).
 */
export class SeedRepository {
  async countRoles(manager: EntityManager): Promise<number> {
    const [{ count }]: { count: number }[] = await manager.query(`SELECT count(*)::int AS count FROM roles`);
    return count;
  }

  /** Serialises concurrent seeders (two instances starting on one database) until the transaction ends. */
  async lock(manager: EntityManager, key: number): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock($1)`, [key]);
  }

  /** Answers whether it was created (an existing permission is left as it is). */
  async insertPermission(manager: EntityManager, permission: PermissionSeed): Promise<boolean> {
    const rows: Pick<PermissionRow, 'id'>[] = await manager.query(
      `INSERT INTO permissions (name, display_name, description, group_name, is_system)
       VALUES ($1, $2, $3, $4, true) ON CONFLICT (name) DO NOTHING RETURNING id`,
      [permission.name, permission.displayName, permission.description, permission.groupName],
    );
    return rows.length > 0;
  }

  /** Answers whether it was created (an existing role is left as it is). */
  async insertRole(manager: EntityManager, role: RoleSeed): Promise<boolean> {
    const rows: Pick<RoleRow, 'id'>[] = await manager.query(
      `INSERT INTO roles (name, display_name, description, is_system)
       VALUES ($1, $2, $3, true) ON CONFLICT (name) DO NOTHING RETURNING id`,
      [role.name, role.displayName, role.description],
    );
    return rows.length > 0;
  }

  /** Gives the role every permission it lacks; answers how many links were made. */
  async linkRoleToEveryPermission(manager: EntityManager, roleName: string): Promise<number> {
    const rows: { permissionId: string }[] = await manager.query(
      `INSERT INTO role_permissions (role_id, permission_id)
       SELECT r.id, p.id FROM roles r CROSS JOIN permissions p WHERE r.name = $1
       ON CONFLICT DO NOTHING RETURNING permission_id AS "permissionId"`,
      [roleName],
    );
    return rows.length;
  }

  async emailTaken(manager: EntityManager, email: string): Promise<boolean> {
    const existing: unknown[] = await manager.query(`SELECT 1 FROM users WHERE email = $1`, [email]);
    return existing.length > 0;
  }

  /** The new user's id, or null when the email or mobile is taken (the account is then skipped). */
  async insertUser(
    manager: EntityManager,
    account: Pick<UserRow, 'name' | 'email' | 'mobile' | 'passwordHash'>,
  ): Promise<string | null> {
    // Seeded accounts are the operator's own: their addresses count as verified.
    const inserted: Pick<UserRow, 'id'>[] = await manager.query(
      `INSERT INTO users (name, email, mobile, password_hash, email_verified_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT DO NOTHING RETURNING id`,
      [account.name, account.email, account.mobile, account.passwordHash],
    );
    return inserted[0]?.id ?? null;
  }

  async grantRole(manager: EntityManager, userId: string, roleName: string): Promise<void> {
    await manager.query(
      `INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = $2 ON CONFLICT DO NOTHING`,
      [userId, roleName],
    );
  }
}
