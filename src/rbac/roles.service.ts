import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import { AuditLog } from '../audit/audit-log.service.js';
import {
  assertAdminRoleKeepsEveryPermission,
  assertMayActOn,
  assertMayGrant,
  type PolicyActor,
} from '../authz/privilege-refusal.js';
import { AppException } from '../common/app-exception.js';
import { asConflict } from '../common/unique-violation.js';
import { AuthzVersions } from './authz-versions.js';
import { Permission } from './permission.entity.js';
import type { CreateRoleDto, UpdateRoleDto } from './rbac.dto.js';
import { notFound, systemProtected, unknownIds } from './rbac-errors.js';
import { toRoleResponse, type RoleResponse } from './rbac.responses.js';
import { Role } from './role.entity.js';

/**
 * Roles and their permission sets. System roles keep their name but may change permissions, except
 * that `admin` keeps every one. The privilege policy holds on every write: a role is created or
 * given only permissions the actor holds, and a role holding one the actor lacks is out of reach.
 */
@Injectable()
export class RolesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
  ) {}

  async list(): Promise<{ items: RoleResponse[]; total: number }> {
    const roles = await this.dataSource
      .getRepository(Role)
      .find({ relations: { permissions: true }, order: { name: 'ASC' } });
    return { items: roles.map(toRoleResponse), total: roles.length };
  }

  async get(id: string): Promise<RoleResponse> {
    return toRoleResponse(await this.findWithPermissions(this.dataSource.manager, id));
  }

  async create(dto: CreateRoleDto, actor: PolicyActor): Promise<RoleResponse> {
    const id = await this.writing(async (manager) => {
      // The insert first: a taken name is 409 whatever the permissions asked for.
      const [{ id }] = await manager.query(
        `INSERT INTO roles (name, display_name, description) VALUES ($1, $2, $3) RETURNING id`,
        [dto.name, dto.display_name ?? null, dto.description ?? null],
      );
      if (dto.permission_ids) {
        const names = await this.permissionNames(manager, dto.permission_ids);
        assertMayGrant(actor, { type: 'role', id }, names, 'role.create');
        await this.replacePermissions(manager, id, dto.permission_ids);
      }
      return id as string;
    });
    await this.audit.record({
      type: 'role.create',
      actorId: actor.id,
      targetType: 'role',
      targetId: id,
      details: { name: dto.name },
    });
    return this.get(id);
  }

  async update(id: string, dto: UpdateRoleDto, actor: PolicyActor): Promise<RoleResponse> {
    await this.writing(async (manager) => {
      const role = await manager.getRepository(Role).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!role) throw notFound('Role');
      const current = await this.permissionNamesOfRole(manager, id);
      assertMayActOn(actor, { type: 'role', id }, current, 'role.update');
      if (dto.name !== undefined && dto.name !== role.name && role.isSystem) throw systemProtected('role', 'renamed');
      if (dto.permission_ids) {
        const next = await this.permissionNames(manager, dto.permission_ids);
        assertMayGrant(actor, { type: 'role', id }, next, 'role.update');
        assertAdminRoleKeepsEveryPermission(actor, role, current, next);
      }
      const changes: Partial<Role> = {};
      if (dto.name !== undefined) changes.name = dto.name;
      if (dto.display_name !== undefined) changes.displayName = dto.display_name;
      if (dto.description !== undefined) changes.description = dto.description;
      if (Object.keys(changes).length > 0) await manager.update(Role, { id }, changes);
      if (dto.permission_ids) await this.replacePermissions(manager, id, dto.permission_ids);
      // updated_at moves when only the permission set changed, too.
      await manager.query(`UPDATE roles SET updated_at = now() WHERE id = $1`, [id]);
    });
    // Role definitions touch every holder: all cached callers go stale.
    await this.versions.bumpGlobal();
    await this.audit.record({
      type: 'role.update',
      actorId: actor.id,
      targetType: 'role',
      targetId: id,
      details: { fields: Object.keys(dto) },
    });
    return this.get(id);
  }

  async delete(id: string, actor: PolicyActor): Promise<Record<string, never>> {
    await this.dataSource.transaction(async (manager) => {
      const role = await manager.getRepository(Role).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!role) throw notFound('Role');
      assertMayActOn(actor, { type: 'role', id }, await this.permissionNamesOfRole(manager, id), 'role.delete');
      if (role.isSystem) throw systemProtected('role', 'deleted');
      await manager.delete(Role, { id });
    });
    await this.versions.bumpGlobal();
    await this.audit.record({ type: 'role.delete', actorId: actor.id, targetType: 'role', targetId: id });
    return {};
  }

  private async findWithPermissions(manager: EntityManager, id: string): Promise<Role> {
    const role = await manager.getRepository(Role).findOne({ where: { id }, relations: { permissions: true } });
    if (!role) throw notFound('Role');
    return role;
  }

  /** The names of these permissions; an unknown id is 400 and nothing changes. */
  private async permissionNames(manager: EntityManager, permissionIds: string[]): Promise<string[]> {
    const found = await manager
      .getRepository(Permission)
      .find({ where: { id: In(permissionIds) }, select: { id: true, name: true } });
    if (found.length !== permissionIds.length) {
      const known = new Set(found.map((permission) => permission.id));
      throw unknownIds(
        'permission_ids',
        permissionIds.filter((id) => !known.has(id)),
      );
    }
    return found.map((permission) => permission.name);
  }

  private async permissionNamesOfRole(manager: EntityManager, roleId: string): Promise<string[]> {
    const rows: { name: string }[] = await manager.query(
      `SELECT p.name FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id WHERE rp.role_id = $1`,
      [roleId],
    );
    return rows.map((row) => row.name);
  }

  /** All ids must exist, or nothing changes (the caller's transaction rolls back). */
  private async replacePermissions(manager: EntityManager, roleId: string, permissionIds: string[]): Promise<void> {
    const found = await manager
      .getRepository(Permission)
      .find({ where: { id: In(permissionIds) }, select: { id: true } });
    if (found.length !== permissionIds.length) {
      const known = new Set(found.map((permission) => permission.id));
      throw unknownIds(
        'permission_ids',
        permissionIds.filter((id) => !known.has(id)),
      );
    }
    await manager.query(`DELETE FROM role_permissions WHERE role_id = $1`, [roleId]);
    if (permissionIds.length > 0) {
      await manager.query(`INSERT INTO role_permissions (role_id, permission_id) SELECT $1, unnest($2::uuid[])`, [
        roleId,
        permissionIds,
      ]);
    }
  }

  private async writing<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (error) {
      throw asConflict(error);
    }
  }
}
