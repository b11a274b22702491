import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import { Permission } from '../../database/entities/permission.entity.js';
import { Role } from '../../database/entities/role.entity.js';

export type RoleChanges = Partial<Pick<Role, 'name' | 'displayName' | 'description'>>;
export type PermissionChanges = Partial<Pick<Permission, 'name' | 'displayName' | 'description' | 'groupName'>>;

/**
 * Roles, permissions and the role ↔ permission links: one aggregate. Methods that take a manager
 * run in the caller's transaction; the others on the data source's own connection.
 */
@Injectable()
export class RolesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every role with its permissions, by name. */
  listWithPermissions(): Promise<Role[]> {
    return this.dataSource.getRepository(Role).find({ relations: { permissions: true }, order: { name: 'ASC' } });
  }

  findWithPermissions(id: string, manager: EntityManager = this.dataSource.manager): Promise<Role | null> {
    return manager.getRepository(Role).findOne({ where: { id }, relations: { permissions: true } });
  }

  /** Role names compare trimmed and case-insensitively, as the folded unique index does. */
  findRoleByName(name: string): Promise<Pick<Role, 'id' | 'name'> | null> {
    return this.dataSource
      .getRepository(Role)
      .createQueryBuilder('role')
      .select(['role.id', 'role.name'])
      .where('lower(btrim(role.name)) = lower(btrim(:name))', { name })
      .getOne();
  }

  /** The role row, locked until the caller's transaction ends. */
  lockRole(manager: EntityManager, id: string): Promise<Role | null> {
    return manager.getRepository(Role).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
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
    await manager.update(Role, { id }, changes);
  }

  /** updated_at moves when only the permission set changed, too. */
  async touchRole(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE roles SET updated_at = now() WHERE id = $1`, [id]);
  }

  async deleteRole(manager: EntityManager, id: string): Promise<void> {
    await manager.delete(Role, { id });
  }

  /** Those of these permissions that exist (ids and names). */
  findPermissionsByIds(manager: EntityManager, ids: string[]): Promise<Pick<Permission, 'id' | 'name'>[]> {
    return manager.getRepository(Permission).find({ where: { id: In(ids) }, select: { id: true, name: true } });
  }

  /** Those of these permission ids that exist. */
  findPermissionIds(manager: EntityManager, ids: string[]): Promise<Pick<Permission, 'id'>[]> {
    return manager.getRepository(Permission).find({ where: { id: In(ids) }, select: { id: true } });
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

  listPermissions(): Promise<Permission[]> {
    return this.dataSource.getRepository(Permission).find({ order: { groupName: 'ASC', name: 'ASC' } });
  }

  findPermission(id: string): Promise<Permission | null> {
    return this.dataSource.getRepository(Permission).findOne({ where: { id } });
  }

  /** The permission row, locked until the caller's transaction ends. */
  lockPermission(manager: EntityManager, id: string): Promise<Permission | null> {
    return manager.getRepository(Permission).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
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
    await manager.update(Permission, { id }, { ...changes, updatedAt: new Date() });
  }

  async deletePermission(manager: EntityManager, id: string): Promise<void> {
    await manager.delete(Permission, { id });
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

  /** Those of these roles that exist (ids and names). */
  findRolesByIds(manager: EntityManager, ids: string[]): Promise<Pick<Role, 'id' | 'name'>[]> {
    return manager.getRepository(Role).find({ where: { id: In(ids) }, select: { id: true, name: true } });
  }
}
