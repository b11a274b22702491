import type { PermissionSeed, RoleSeed } from './seeds/seed-data.js';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * A row of `roles`, the one shape the table's statements answer in: every column aliased to its
 * camelCase name (`display_name AS "displayName"`).
 */
export interface RoleRow {
  id: string;
  name: string;
  displayName: string | null;
  description: string | null;
  /** Seeded by the service: it cannot be renamed or deleted. */
  isSystem: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A row of `permissions`, in the same way. */
export interface PermissionRow {
  id: string;
  name: string;
  displayName: string | null;
  description: string | null;
  groupName: string | null;
  isSystem: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A role with the permissions it holds (`role_permissions`), by name. */
export type RoleWithPermissionsRow = RoleRow & { permissions: Pick<PermissionRow, 'id' | 'name'>[] };

export type RoleChanges = Partial<Pick<RoleRow, 'name' | 'displayName' | 'description'>>;
export type PermissionChanges = Partial<Pick<PermissionRow, 'name' | 'displayName' | 'description' | 'groupName'>>;

const ROLE_COLUMNS = `r.id, r.name, r.display_name AS "displayName", r.description, r.is_system AS "isSystem",
  r.created_at AS "createdAt", r.updated_at AS "updatedAt"`;

const PERMISSION_COLUMNS = `id, name, display_name AS "displayName", description, group_name AS "groupName",
  is_system AS "isSystem", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The permissions of the role `r.id`, as `[{ id, name }]` by name. */
const PERMISSIONS_OF_R = `COALESCE((
    SELECT json_agg(json_build_object('id', p.id, 'name', p.name) ORDER BY p.name)
      FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id
     WHERE rp.role_id = r.id), '[]') AS permissions`;

/** The SET list of the given changes (undefined ones left alone), numbered after `params`. */
function setList(columns: [string, unknown][], params: unknown[]): string[] {
  return columns
    .filter(([, value]) => value !== undefined)
    .map(([column, value]) => {
      params.push(value);
      return `${column} = $${params.length}`;
    });
}

/**
 * Roles, permissions and the role ↔ permission links: one aggregate. Methods that take a manager
 * run in the caller's transaction; the others on the data source's own connection.
 */
@Injectable()
export class RolesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every role with its permissions, by name. */
  listWithPermissions(): Promise<RoleWithPermissionsRow[]> {
    return this.dataSource.query(`SELECT ${ROLE_COLUMNS}, ${PERMISSIONS_OF_R} FROM roles r ORDER BY r.name`);
  }

  async findWithPermissions(
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<RoleWithPermissionsRow | null> {
    const [row]: RoleWithPermissionsRow[] = await manager.query(
      `SELECT ${ROLE_COLUMNS}, ${PERMISSIONS_OF_R} FROM roles r WHERE r.id = $1`,
      [id],
    );
    return row ?? null;
  }

  /** Role names compare trimmed and case-insensitively, as the folded unique index does. */
  async findRoleByName(name: string): Promise<Pick<RoleRow, 'id' | 'name'> | null> {
    const [row]: Pick<RoleRow, 'id' | 'name'>[] = await this.dataSource.query(
      `SELECT id, name FROM roles WHERE lower(btrim(name)) = lower(btrim($1))`,
      [name],
    );
    return row ?? null;
  }

  /** The role row, locked until the caller's transaction ends. */
  async lockRole(manager: EntityManager, id: string): Promise<RoleRow | null> {
    const [row]: RoleRow[] = await manager.query(`SELECT ${ROLE_COLUMNS} FROM roles r WHERE r.id = $1 FOR UPDATE`, [
      id,
    ]);
    return row ?? null;
  }

  async insertRole(
    manager: EntityManager,
    role: { name: string; displayName: string | null; description: string | null },
  ): Promise<string> {
    const [{ id }] = await manager.query(
      `INSERT INTO roles (name, display_name, description) VALUES ($1, $2, $3) RETURNING id`,
      [role.name, role.displayName, role.description],
    );
    return id as string;
  }

  async updateRole(manager: EntityManager, id: string, changes: RoleChanges): Promise<void> {
    const params: unknown[] = [id];
    const sets = setList(
      [
        ['name', changes.name],
        ['display_name', changes.displayName],
        ['description', changes.description],
      ],
      params,
    );
    await manager.query(
      `UPDATE roles SET ${[...sets, 'updated_at = CURRENT_TIMESTAMP'].join(', ')} WHERE id = $1`,
      params,
    );
  }

  /** updated_at moves when only the permission set changed, too. */
  async touchRole(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE roles SET updated_at = now() WHERE id = $1`, [id]);
  }

  async deleteRole(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`DELETE FROM roles WHERE id = $1`, [id]);
  }

  /** Those of these permissions that exist (ids and names). */
  findPermissionsByIds(manager: EntityManager, ids: string[]): Promise<Pick<PermissionRow, 'id' | 'name'>[]> {
    return manager.query(`SELECT id, name FROM permissions WHERE id = ANY($1::uuid[])`, [ids]);
  }

  /** Those of these permission ids that exist. */
  findPermissionIds(manager: EntityManager, ids: string[]): Promise<Pick<PermissionRow, 'id'>[]> {
    return manager.query(`SELECT id FROM permissions WHERE id = ANY($1::uuid[])`, [ids]);
  }

  async permissionNamesOfRole(manager: EntityManager, roleId: string): Promise<string[]> {
    const rows: { name: string }[] = await manager.query(
      `SELECT p.name FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id WHERE rp.role_id = $1`,
      [roleId],
    );
    return rows.map((row) => row.name);
  }

  /** The role's permission set becomes exactly these (existing) ids. */
  async setRolePermissions(manager: EntityManager, roleId: string, permissionIds: string[]): Promise<void> {
    await manager.query(`DELETE FROM role_permissions WHERE role_id = $1`, [roleId]);
    if (permissionIds.length > 0) {
      await manager.query(`INSERT INTO role_permissions (role_id, permission_id) SELECT $1, unnest($2::uuid[])`, [
        roleId,
        permissionIds,
      ]);
    }
  }

  listPermissions(): Promise<PermissionRow[]> {
    return this.dataSource.query(`SELECT ${PERMISSION_COLUMNS} FROM permissions ORDER BY group_name, name`);
  }

  async findPermission(id: string): Promise<PermissionRow | null> {
    const [row]: PermissionRow[] = await this.dataSource.query(
      `SELECT ${PERMISSION_COLUMNS} FROM permissions WHERE id = $1`,
      [id],
    );
    return row ?? null;
  }

  /** The permission row, locked until the caller's transaction ends. */
  async lockPermission(manager: EntityManager, id: string): Promise<PermissionRow | null> {
    const [row]: PermissionRow[] = await manager.query(
      `SELECT ${PERMISSION_COLUMNS} FROM permissions WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return row ?? null;
  }

  /** A new permission, given at once to the role named `holderRole` (the admin role holds every one). */
  async insertPermission(
    manager: EntityManager,
    permission: { name: string; displayName: string | null; description: string | null; groupName: string | null },
    holderRole: string,
  ): Promise<string> {
    const [{ id }] = await manager.query(
      `INSERT INTO permissions (name, display_name, description, group_name) VALUES ($1, $2, $3, $4) RETURNING id`,
      [permission.name, permission.displayName, permission.description, permission.groupName],
    );
    await manager.query(
      `INSERT INTO role_permissions (role_id, permission_id) SELECT id, $1 FROM roles WHERE name = $2`,
      [id, holderRole],
    );
    return id as string;
  }

  async updatePermission(manager: EntityManager, id: string, changes: PermissionChanges): Promise<void> {
    const params: unknown[] = [id];
    const sets = setList(
      [
        ['name', changes.name],
        ['display_name', changes.displayName],
        ['description', changes.description],
        ['group_name', changes.groupName],
        ['updated_at', new Date()],
      ],
      params,
    );
    await manager.query(`UPDATE permissions SET ${sets.join(', ')} WHERE id = $1`, params);
  }

  async deletePermission(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`DELETE FROM permissions WHERE id = $1`, [id]);
  }

  /** The role row locked until the caller's transaction ends; its id, or undefined when there is none. */
  async lockRoleByName(manager: EntityManager, name: string): Promise<string | undefined> {
    const [role] = await manager.query(`SELECT id FROM roles WHERE name = $1 FOR UPDATE`, [name]);
    return role?.id;
  }

  /** The names of the permissions these roles hold together. */
  async permissionNamesOfRoles(manager: EntityManager, roleIds: string[]): Promise<string[]> {
    const granted: { name: string }[] = await manager.query(
      `SELECT DISTINCT p.name FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id WHERE rp.role_id = ANY($1::uuid[])`,
      [roleIds],
    );
    return granted.map((row) => row.name);
  }

  /**
   * Those of these roles that exist (ids and names), kept from deletion until the caller's
   * transaction ends, so that a role being given cannot vanish before the grant is written.
   */
  findRolesByIds(manager: EntityManager, ids: string[]): Promise<Pick<RoleRow, 'id' | 'name'>[]> {
    return manager.query(`SELECT id, name FROM roles WHERE id = ANY($1::uuid[]) FOR KEY SHARE`, [ids]);
  }

  /** A seeded permission; answers whether it was created (an existing one is left as it is). */
  async insertSystemPermission(manager: EntityManager, permission: PermissionSeed): Promise<boolean> {
    const rows: Pick<PermissionRow, 'id'>[] = await manager.query(
      `INSERT INTO permissions (name, display_name, description, group_name, is_system)
       VALUES ($1, $2, $3, $4, true) ON CONFLICT (name) DO NOTHING RETURNING id`,
      [permission.name, permission.displayName, permission.description, permission.groupName],
    );
    return rows.length > 0;
  }

  /** A seeded role; answers whether it was created (an existing one is left as it is). */
  async insertSystemRole(manager: EntityManager, role: RoleSeed): Promise<boolean> {
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
}
