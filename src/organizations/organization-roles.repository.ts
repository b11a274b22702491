import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { PermissionRow, RoleRow } from '../rbac/index.js';
import type { RoleRef } from './memberships.repository.js';

/** A row of `organization_permissions`: the columns of the instance's `permissions`. */
export type OrganizationPermissionRow = PermissionRow;

/** A row of `organization_roles` (the columns of the instance's `roles`), with its permissions. */
export type OrganizationRoleRow = RoleRow & { permissions: RoleRef[] };

const PERMISSION_COLUMNS = `id, name, display_name AS "displayName", description, group_name AS "groupName",
  is_system AS "isSystem", created_at AS "createdAt", updated_at AS "updatedAt"`;

const ROLE_COLUMNS = `r.id, r.name, r.display_name AS "displayName", r.description, r.is_system AS "isSystem",
  r.created_at AS "createdAt", r.updated_at AS "updatedAt",
  COALESCE((SELECT json_agg(json_build_object('id', p.id, 'name', p.name) ORDER BY p.name)
              FROM organization_role_permissions rp JOIN organization_permissions p ON p.id = rp.permission_id
             WHERE rp.role_id = r.id), '[]'::json) AS permissions`;

/**
 * The one template of organization roles and permissions every organization shares, apart from
 * the instance's roles and permissions. The only writer of `organization_roles`,
 * `organization_permissions` and `organization_role_permissions`.
 */
@Injectable()
export class OrganizationRolesRepository {
  constructor(private readonly dataSource: DataSource) {}

  listRoles(): Promise<OrganizationRoleRow[]> {
    return this.dataSource.query(`SELECT ${ROLE_COLUMNS} FROM organization_roles r ORDER BY r.created_at, r.name`);
  }

  async findRole(id: string, manager: EntityManager = this.dataSource.manager): Promise<OrganizationRoleRow | null> {
    const [row]: OrganizationRoleRow[] = await manager.query(
      `SELECT ${ROLE_COLUMNS} FROM organization_roles r WHERE r.id = $1`,
      [id],
    );
    return row ?? null;
  }

  async findRoleByName(name: string): Promise<OrganizationRoleRow | null> {
    const [row]: OrganizationRoleRow[] = await this.dataSource.query(
      `SELECT ${ROLE_COLUMNS} FROM organization_roles r WHERE lower(r.name) = lower(btrim($1))`,
      [name],
    );
    return row ?? null;
  }

  /** The roles among `ids` (unknown ids are left out). */
  findRoles(manager: EntityManager, ids: string[]): Promise<OrganizationRoleRow[]> {
    return manager.query(`SELECT ${ROLE_COLUMNS} FROM organization_roles r WHERE r.id = ANY($1::uuid[])`, [ids]);
  }

  /** The union of the permissions of the roles. */
  async permissionNamesOfRoles(manager: EntityManager, roleIds: string[]): Promise<string[]> {
    const rows: { name: string }[] = await manager.query(
      `SELECT DISTINCT p.name FROM organization_role_permissions rp
         JOIN organization_permissions p ON p.id = rp.permission_id
        WHERE rp.role_id = ANY($1::uuid[]) ORDER BY p.name`,
      [roleIds],
    );
    return rows.map((row) => row.name);
  }

  async lockRole(manager: EntityManager, id: string): Promise<OrganizationRoleRow | null> {
    await manager.query(`SELECT id FROM organization_roles WHERE id = $1 FOR UPDATE`, [id]);
    return this.findRole(id, manager);
  }

  async insertRole(
    manager: EntityManager,
    role: { name: string; displayName: string | null; description: string | null },
  ): Promise<string> {
    const [row]: { id: string }[] = await manager.query(
      `INSERT INTO organization_roles (name, display_name, description) VALUES ($1, $2, $3) RETURNING id`,
      [role.name, role.displayName, role.description],
    );
    return row.id;
  }

  async updateRole(
    manager: EntityManager,
    id: string,
    changes: { name?: string; displayName?: string; description?: string },
  ): Promise<void> {
    await manager.query(
      `UPDATE organization_roles SET name = COALESCE($2, name), display_name = COALESCE($3, display_name),
              description = COALESCE($4, description), updated_at = now() WHERE id = $1`,
      [id, changes.name ?? null, changes.displayName ?? null, changes.description ?? null],
    );
  }

  async setRolePermissions(manager: EntityManager, roleId: string, permissionIds: string[]): Promise<void> {
    await manager.query(`DELETE FROM organization_role_permissions WHERE role_id = $1`, [roleId]);
    if (permissionIds.length === 0) return;
    await manager.query(
      `INSERT INTO organization_role_permissions (role_id, permission_id) SELECT $1, unnest($2::uuid[])
       ON CONFLICT DO NOTHING`,
      [roleId, permissionIds],
    );
  }

  async deleteRole(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`DELETE FROM organization_roles WHERE id = $1`, [id]);
  }

  listPermissions(): Promise<OrganizationPermissionRow[]> {
    return this.dataSource.query(
      `SELECT ${PERMISSION_COLUMNS} FROM organization_permissions ORDER BY group_name, name`,
    );
  }

  async findPermission(
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<OrganizationPermissionRow | null> {
    const [row]: OrganizationPermissionRow[] = await manager.query(
      `SELECT ${PERMISSION_COLUMNS} FROM organization_permissions WHERE id = $1`,
      [id],
    );
    return row ?? null;
  }

  /** The permissions among `ids` (unknown ids are left out). */
  findPermissions(manager: EntityManager, ids: string[]): Promise<OrganizationPermissionRow[]> {
    return manager.query(`SELECT ${PERMISSION_COLUMNS} FROM organization_permissions WHERE id = ANY($1::uuid[])`, [
      ids,
    ]);
  }

  /** A new organization permission, given at once to `owner` (which holds every one). */
  async insertPermission(
    manager: EntityManager,
    permission: { name: string; displayName: string | null; description: string | null; groupName: string | null },
  ): Promise<string> {
    const [row]: { id: string }[] = await manager.query(
      `INSERT INTO organization_permissions (name, display_name, description, group_name)
       VALUES ($1, $2, $3, $4) RETURNING id`,
      [permission.name, permission.displayName, permission.description, permission.groupName],
    );
    await manager.query(
      `INSERT INTO organization_role_permissions (role_id, permission_id)
         SELECT id, $1 FROM organization_roles WHERE name = 'owner' ON CONFLICT DO NOTHING`,
      [row.id],
    );
    return row.id;
  }

  async updatePermission(
    manager: EntityManager,
    id: string,
    changes: { name?: string; displayName?: string; description?: string; groupName?: string },
  ): Promise<void> {
    await manager.query(
      `UPDATE organization_permissions SET name = COALESCE($2, name), display_name = COALESCE($3, display_name),
              description = COALESCE($4, description), group_name = COALESCE($5, group_name), updated_at = now()
        WHERE id = $1`,
      [id, changes.name ?? null, changes.displayName ?? null, changes.description ?? null, changes.groupName ?? null],
    );
  }

  async deletePermission(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`DELETE FROM organization_permissions WHERE id = $1`, [id]);
  }

  /** The roles holding the permission (their members' permissions change with it). */
  async rolesWithPermission(manager: EntityManager, permissionId: string): Promise<string[]> {
    const rows: { roleId: string }[] = await manager.query(
      `SELECT role_id AS "roleId" FROM organization_role_permissions WHERE permission_id = $1`,
      [permissionId],
    );
    return rows.map((row) => row.roleId);
  }
}
