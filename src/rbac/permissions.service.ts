import { SecurityEventsRepository } from '../events/index.js';
import { Injectable } from '@nestjs/common';
import { assertMayActOn, type PolicyActor } from './privilege-refusal.js';
import type { Actor } from '../common/actor.js';
import { DefinitionWrites } from './definition-writes.js';
import { RolesRepository } from './roles.repository.js';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';
import type { CreatePermissionDto, UpdatePermissionDto } from './rbac.dto.js';
import { notFound, systemProtected } from './rbac-errors.js';
import { toPermissionResponse, type PermissionResponse } from './rbac.responses.js';
import { Transactions } from '../infra/database/transactions.js';

/**
 * Permissions (`resource.action`). The admin role holds every one, including new ones. Editing or
 * deleting a permission needs holding it (the privilege policy's "target ⊆ own").
 */
@Injectable()
export class PermissionsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly roles: RolesRepository,
    private readonly writes: DefinitionWrites,
    private readonly events: SecurityEventsRepository,
  ) {}

  async list(): Promise<{ items: PermissionResponse[]; total: number }> {
    const permissions = await this.roles.listPermissions();
    return { items: permissions.map(toPermissionResponse), total: permissions.length };
  }

  async get(id: string): Promise<PermissionResponse> {
    const permission = await this.roles.findPermission(id);
    if (!permission) throw notFound('Permission');
    return toPermissionResponse(permission);
  }

  async create(dto: CreatePermissionDto, actor: Actor): Promise<PermissionResponse> {
    const id = await this.writes.run(async (manager) => {
      const created = await this.roles.insertPermission(
        manager,
        {
          name: dto.name,
          displayName: dto.display_name ?? null,
          description: dto.description ?? null,
          groupName: dto.group_name ?? null,
        },
        SystemRoles.Admin,
      );
      await this.events.append(manager, [{ type: 'role-change', role: SystemRoles.Admin }]);
      return created;
    });
    await this.writes.committed({
      type: 'permission.create',
      actor,
      target: { type: 'permission', id },
      details: { name: dto.name },
    });
    return this.get(id);
  }

  async update(id: string, dto: UpdatePermissionDto, actor: PolicyActor): Promise<PermissionResponse> {
    await this.writes.run(async (manager) => {
      const permission = await this.roles.lockPermission(manager, id);
      if (!permission) throw notFound('Permission');
      assertMayActOn(actor, { type: 'permission', id }, [permission.name], 'permission.update');
      if (dto.name !== undefined && dto.name !== permission.name && permission.isSystem) {
        throw systemProtected('permission', 'renamed');
      }
      if (dto.name !== undefined && dto.name !== permission.name)
        await this.events.appendRoleChangesOfPermission(manager, id);
      await this.roles.updatePermission(manager, id, {
        ...(dto.name !== undefined && { name: dto.name }),
        ...(dto.display_name !== undefined && { displayName: dto.display_name }),
        ...(dto.description !== undefined && { description: dto.description }),
        ...(dto.group_name !== undefined && { groupName: dto.group_name }),
      });
    });
    await this.writes.committed({
      type: 'permission.update',
      actor,
      target: { type: 'permission', id },
      details: { fields: Object.keys(dto) },
    });
    return this.get(id);
  }

  async delete(id: string, actor: PolicyActor): Promise<Record<string, never>> {
    await this.transactions.run(async (manager) => {
      const permission = await this.roles.lockPermission(manager, id);
      if (!permission) throw notFound('Permission');
      assertMayActOn(actor, { type: 'permission', id }, [permission.name], 'permission.delete');
      if (permission.isSystem) throw systemProtected('permission', 'deleted');
      await this.events.appendRoleChangesOfPermission(manager, id);
      await this.roles.deletePermission(manager, id);
    });
    await this.writes.committed({ type: 'permission.delete', actor, target: { type: 'permission', id } });
    return {};
  }
}
