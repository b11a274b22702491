import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { maySignInSql, type UserIdentityRow, type UserRow } from '../identity/index.js';
import { underAdminStatementTimeout } from '../infra/database/admin-statement-timeout.js';

/** A user as administrators see them: never a password or hash. */
export type AdminUserRow = UserIdentityRow &
  Pick<UserRow, 'disabledAt' | 'disabledUntil' | 'disabledReason' | 'createdAt' | 'updatedAt'> & {
    emailVerified: boolean;
    /** Disabled now: set, and not past its end. */
    disabled: boolean;
    roles: { id: string; name: string }[];
  };

/** The columns of the admin user record beside id, name, email and mobile, over `users` aliased `u`. */
const adminStatusColumns = (u: string) => `${u}.email_verified_at IS NOT NULL AS "emailVerified",
       NOT ${maySignInSql(u)} AS disabled,
       ${u}.disabled_at AS "disabledAt", ${u}.disabled_until AS "disabledUntil", ${u}.disabled_reason AS "disabledReason"`;

/** The roles of the user `p.id`, by name: a correlated subquery run once per row of a page. */
const ROLES_OF_P = `COALESCE((
    SELECT json_agg(json_build_object('id', r.id, 'name', r.name) ORDER BY r.name)
      FROM user_roles ur JOIN roles r ON r.id = ur.role_id
     WHERE ur.user_id = p.id), '[]')`;

/**
 * `search` matches a fragment of the email or the name, case-insensitively, through the trigram
 * indexes (lower(email), name); LIKE's wildcards in it are matched literally.
 */
function searchCondition(search: string | undefined): { where: string; params: unknown[] } {
  if (!search) return { where: '', params: [] };
  const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return { where: `WHERE lower(u.email) LIKE lower($1) OR u.name ILIKE $1`, params: [pattern] };
}

/**
 * One page of the admin users list. The page's ids come first, in (created_at, id) order from
 * IDX_users_created_at_id (or from the trigram indexes for a search), and roles are joined for
 * those rows only: the cost follows the page, not the table. Exported so the tests can EXPLAIN
 * exactly what the service runs.
 */
export function adminUsersPageQuery(
  search: string | undefined,
  limit: number,
  offset: number,
): { sql: string; params: unknown[] } {
  const { where, params } = searchCondition(search);
  return {
    sql: `SELECT p.id, p.name, p.email, p.mobile, p."emailVerified", p.disabled, p."disabledAt", p."disabledUntil",
                 p."disabledReason", p."createdAt", p."updatedAt", ${ROLES_OF_P} AS roles
            FROM (SELECT u.id, u.name, u.email, u.mobile, ${adminStatusColumns('u')},
                         u.created_at AS "createdAt", u.updated_at AS "updatedAt" FROM users u ${where}
                   ORDER BY u.created_at, u.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}) AS p
           ORDER BY p."createdAt", p.id`,
    params: [...params, limit, offset],
  };
}

/**
 * The users as administrators list and read them (the rows are the identity's `users`, written
 * there; the roles are rbac's `user_roles`): reads only, under the admin statement timeout.
 */
@Injectable()
export class AdminUsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A page of users with their roles and the number of users matching, under the admin statement
   * timeout. The total counts users alone, never the role join.
   */
  findAdminPage(
    search: string | undefined,
    limit: number,
    offset: number,
  ): Promise<{ items: AdminUserRow[]; total: number }> {
    return underAdminStatementTimeout(this.dataSource, async (manager) => {
      const { where, params } = searchCondition(search);
      const [{ total }] = await manager.query(`SELECT count(*)::int AS total FROM users u ${where}`, params);
      const page = adminUsersPageQuery(search, limit, offset);
      const items: AdminUserRow[] = await manager.query(page.sql, page.params);
      return { items, total };
    });
  }

  /** One user with their roles, in the caller's transaction when given, else under the admin timeout. */
  findAdminUser(id: string, manager?: EntityManager): Promise<AdminUserRow | null> {
    const find = async (runner: EntityManager) => {
      const [user]: AdminUserRow[] = await runner.query(
        `SELECT p.id, p.name, p.email, p.mobile, ${adminStatusColumns('p')}, p.created_at AS "createdAt", p.updated_at AS "updatedAt",
                ${ROLES_OF_P} AS roles FROM users p WHERE p.id = $1`,
        [id],
      );
      return user ?? null;
    };
    return manager ? find(manager) : underAdminStatementTimeout(this.dataSource, find);
  }
}
