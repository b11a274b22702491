import { SecurityEventsRepository } from '../events/index.js';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  assertAdminRoleKeepsEveryPermission,
  assertMayActOn,
  assertMayGrant,
  type PolicyActor,
} from './privilege-refusal.js';
import { DefinitionWrites } from './definition-writes.js';
import type { CreateRoleDto, UpdateRoleDto } from './rbac.dto.js';
import { notFound, systemProtected, unknownIds } from './rbac-errors.js';
import { toRoleResponse, type RoleResponse } from './rbac.responses.js';
import { RolesRepository, type RoleChanges } from './roles.repository.js';
import { Transactions } from '../infra/database/transactions.js';

/**
 * Roles and their permission sets. System roles keep their name but may change permissions, except
 * that `admin` keeps every one. The privilege policy holds on every write: a role is created or
 * given only permissions the actor holds, and a role holding one the actor lacks is out of reach.
 */
@Injectable()
export class RolesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly roles: RolesRepository,
    private readonly writes: DefinitionWrites,
    private readonly events: SecurityEventsRepository,
  ) {}

  async list(): Promise<{ items: RoleResponse[]; total: number }> {
    const roles = await this.roles.listWithPermissions();
    return { items: roles.map(toRoleResponse), total: roles.length };
  }

  async get(id: string): Promise<RoleResponse> {
    return toRoleResponse(await this.findWithPermissions(this.transactions.manager, id));
  }

  async create(dto: CreateRoleDto, actor: PolicyActor): Promise<RoleResponse> {
    const id = await this.writes.run(async (manager) => {
      // The insert first: a taken name is 409 whatever the permissions asked for.
      const id = await this.roles.insertRole(manager, {
        name: dto.name,
        displayName: dto.display_name ?? null,
        description: dto.description ?? null,
      });
      if (dto.permission_ids) {
        const names = await this.permissionNames(manager, dto.permission_ids);
        assertMayGrant(actor, { type: 'role', id }, names, 'role.create');
        await this.replacePermissions(manager, id, dto.permission_ids);
      }
      return id;
    });
    await this.writes.recorded({
      type: 'role.create',
      actor,
      target: { type: 'role', id },
      details: { name: dto.name },
    });
    return this.get(id);
  }

  async update(id: string, dto: UpdateRoleDto, actor: PolicyActor): Promise<RoleResponse> {
    await this.writes.run(async (manager) => {
      const role = await this.roles.lockRole(manager, id);
      if (!role) throw notFound('Role');
      const current = await this.permissionNamesOfRole(manager, id);
      assertMayActOn(actor, { type: 'role', id }, current, 'role.update');
      if (dto.name !== undefined && dto.name !== role.name && role.isSystem) throw systemProtected('role', 'renamed');
      if (dto.permission_ids) {
        const next = await this.permissionNames(manager, dto.permission_ids);
        assertMayGrant(actor, { type: 'role', id }, next, 'role.update');
        assertAdminRoleKeepsEveryPermission(actor, role, current, next);
      }
      const changes: RoleChanges = {};
      if (dto.name !== undefined) changes.name = dto.name;
      if (dto.display_name !== undefined) changes.displayName = dto.display_name;
      if (dto.description !== undefined) changes.description = dto.description;
      if (Object.keys(changes).length > 0) await this.roles.updateRole(manager, id, changes);
      if (dto.permission_ids) await this.replacePermissions(manager, id, dto.permission_ids);
      // updated_at moves when only the permission set changed, too.
      await this.roles.touchRole(manager, id);
      // Holders are known to other services by the role's name as it was.
      await this.events.append(manager, [{ type: 'role-change', role: role.name }]);
    });
    await this.writes.committed({
      type: 'role.update',
      actor,
      target: { type: 'role', id },
      details: { fields: Object.keys(dto) },
    });
    return this.get(id);
  }

  async delete(id: string, actor: PolicyActor): Promise<Record<string, never>> {
    await this.transactions.run(async (manager) => {
      const role = await this.roles.lockRole(manager, id);
      if (!role) throw notFound('Role');
      assertMayActOn(actor, { type: 'role', id }, await this.permissionNamesOfRole(manager, id), 'role.delete');
      if (role.isSystem) throw systemProtected('role', 'deleted');
      await this.roles.deleteRole(manager, id);
      await this.events.append(manager, [{ type: 'role-change', role: role.name }]);
    });
    await this.writes.committed({ type: 'role.delete', actor, target: { type: 'role', id } });
    return {};
  }

  private async findWithPermissions(manager: EntityManager, id: string) {
    const role = await this.roles.findWithPermissions(id, manager);
    if (!role) throw notFound('Role');
    return role;
  }

  /** The names of these permissions; an unknown id is 400 and nothing changes. */
  private async permissionNames(manager: EntityManager, permissionIds: string[]): Promise<string[]> {
    const found = await this.roles.findPermissionsByIds(manager, permissionIds);
    refuseUnknownPermissions(permissionIds, found);
    return found.map((permission) => permission.name);
  }

  private permissionNamesOfRole(manager: EntityManager, roleId: string): Promise<string[]> {
    return this.roles.permissionNamesOfRole(manager, roleId);
  }

  /** All ids must exist, or nothing changes (the caller's transaction rolls back). */
  private async replacePermissions(manager: EntityManager, roleId: string, permissionIds: string[]): Promise<void> {
    refuseUnknownPermissions(permissionIds, await this.roles.findPermissionIds(manager, permissionIds));
    await this.roles.setRolePermissions(manager, roleId, permissionIds);
  }
}

/** An asked-for permission id that is not among those found is 400, naming every unknown id. */
function refuseUnknownPermissions(permissionIds: string[], found: { id: string }[]): void {
  if (found.length === permissionIds.length) return;
  const known = new Set(found.map((permission) => permission.id));
  throw unknownIds(
    'permission_ids',
    permissionIds.filter((id) => !known.has(id)),
  );
}
