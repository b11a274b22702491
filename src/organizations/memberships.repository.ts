import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ROLE_AND_PERMISSION_NAMES } from '../rbac/index.js';

export interface RoleRef {
  id: string;
  name: string;
}

/** A person's membership as the members' list shows it. */
export interface MemberRow {
  userId: string;
  name: string;
  email: string;
  roles: RoleRef[];
  joinedAt: Date;
}

/** What a person may do in one organization: role names and the union of their permissions. */
export interface MembershipAccess {
  roles: string[];
  permissions: string[];
}

/** One of the caller's organizations with the caller's roles there. */
export interface OwnOrganizationRow {
  id: string;
  slug: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  roles: RoleRef[];
}

const ROLES_OF_MEMBER = `COALESCE((SELECT json_agg(json_build_object('id', r.id, 'name', r.name) ORDER BY r.name)
             FROM organization_member_roles mr JOIN organization_roles r ON r.id = mr.role_id
            WHERE mr.organization_id = m.organization_id AND mr.user_id = m.user_id), '[]'::json)`;

/** The only writer of `organization_members` and `organization_member_roles`. */
@Injectable()
export class MembershipsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The person's roles and permissions in the organization; null when they are not a member. */
  async findAccess(
    organizationId: string,
    userId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<MembershipAccess | null> {
    const [row]: MembershipAccess[] = await manager.query(
      `SELECT ${ROLE_AND_PERMISSION_NAMES}
         FROM organization_members m
         LEFT JOIN organization_member_roles mr ON mr.organization_id = m.organization_id AND mr.user_id = m.user_id
         LEFT JOIN organization_roles r ON r.id = mr.role_id
         LEFT JOIN organization_role_permissions rp ON rp.role_id = r.id
         LEFT JOIN organization_permissions p ON p.id = rp.permission_id
        WHERE m.organization_id = $1 AND m.user_id = $2
        GROUP BY m.organization_id, m.user_id`,
      [organizationId, userId],
    );
    return row ?? null;
  }

  async rolesOf(manager: EntityManager, organizationId: string, userId: string): Promise<RoleRef[]> {
    return manager.query(
      `SELECT r.id, r.name FROM organization_member_roles mr JOIN organization_roles r ON r.id = mr.role_id
        WHERE mr.organization_id = $1 AND mr.user_id = $2 ORDER BY r.name`,
      [organizationId, userId],
    );
  }

  async isMember(manager: EntityManager, organizationId: string, userId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM organization_members WHERE organization_id = $1 AND user_id = $2`,
      [organizationId, userId],
    );
    return rows.length > 0;
  }

  /** Members holding the role, other than `exceptUserId`. */
  async countHolders(
    manager: EntityManager,
    organizationId: string,
    roleName: string,
    exceptUserId: string,
  ): Promise<number> {
    const [{ count }]: { count: number }[] = await manager.query(
      `SELECT count(*)::int AS count FROM organization_member_roles mr JOIN organization_roles r ON r.id = mr.role_id
        WHERE mr.organization_id = $1 AND r.name = $2 AND mr.user_id <> $3`,
      [organizationId, roleName, exceptUserId],
    );
    return count;
  }

  async insert(manager: EntityManager, organizationId: string, userId: string, roleIds: string[]): Promise<void> {
    await manager.query(`INSERT INTO organization_members (organization_id, user_id) VALUES ($1, $2)`, [
      organizationId,
      userId,
    ]);
    await this.setRoles(manager, organizationId, userId, roleIds);
  }

  async setRoles(manager: EntityManager, organizationId: string, userId: string, roleIds: string[]): Promise<void> {
    await manager.query(`DELETE FROM organization_member_roles WHERE organization_id = $1 AND user_id = $2`, [
      organizationId,
      userId,
    ]);
    if (roleIds.length === 0) return;
    await manager.query(
      `INSERT INTO organization_member_roles (organization_id, user_id, role_id)
         SELECT $1, $2, unnest($3::uuid[]) ON CONFLICT DO NOTHING`,
      [organizationId, userId, roleIds],
    );
  }

  async delete(manager: EntityManager, organizationId: string, userId: string): Promise<boolean> {
    const [, affected]: [unknown[], number] = await manager.query(
      `DELETE FROM organization_members WHERE organization_id = $1 AND user_id = $2`,
      [organizationId, userId],
    );
    return affected > 0;
  }

  /** Every member's id (for the events of a deletion or a role's change). */
  async memberIds(manager: EntityManager, organizationId: string): Promise<string[]> {
    const rows: { userId: string }[] = await manager.query(
      `SELECT user_id AS "userId" FROM organization_members WHERE organization_id = $1 ORDER BY user_id`,
      [organizationId],
    );
    return rows.map((row) => row.userId);
  }

  /** Every membership holding the role: `(organizationId, userId)`. */
  async holdersOfRole(manager: EntityManager, roleId: string): Promise<{ organizationId: string; userId: string }[]> {
    return manager.query(
      `SELECT organization_id AS "organizationId", user_id AS "userId" FROM organization_member_roles
        WHERE role_id = $1 ORDER BY organization_id, user_id`,
      [roleId],
    );
  }

  async members(organizationId: string, offset: number, limit: number): Promise<MemberRow[]> {
    return this.dataSource.query(
      `SELECT m.user_id AS "userId", u.name, u.email, m.created_at AS "joinedAt", ${ROLES_OF_MEMBER} AS roles
         FROM organization_members m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = $1
        ORDER BY m.created_at, m.user_id LIMIT $2 OFFSET $3`,
      [organizationId, limit, offset],
    );
  }

  async countMembers(organizationId: string): Promise<number> {
    const [{ total }]: { total: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM organization_members WHERE organization_id = $1`,
      [organizationId],
    );
    return total;
  }

  /** The person's organizations, with their roles in each, oldest membership first. */
  async organizationsOf(userId: string): Promise<OwnOrganizationRow[]> {
    return this.dataSource.query(
      `SELECT o.id, o.slug, o.name, o.created_at AS "createdAt", o.updated_at AS "updatedAt", ${ROLES_OF_MEMBER} AS roles
         FROM organization_members m JOIN organizations o ON o.id = m.organization_id
        WHERE m.user_id = $1 ORDER BY m.created_at, o.id`,
      [userId],
    );
  }
}
