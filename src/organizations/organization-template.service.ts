import type { AuthUser } from '@auth-rbac/nest-guard';
import { OrganizationRoles } from '@auth-rbac/nest-guard/internal';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditLog } from '../audit/index.js';
import { AppException } from '../common/app-exception.js';
import { Transactions } from '../infra/database/transactions.js';
import {
  AuthzVersions,
  notFound,
  systemProtected,
  toPermissionResponse,
  toRoleResponse,
  unknownIds,
  type CreatePermissionDto,
  type CreateRoleDto,
  type UpdatePermissionDto,
  type UpdateRoleDto,
} from '../rbac/index.js';
import { MembershipsRepository } from './memberships.repository.js';
import { OrganizationChanges, type ChangedMembership } from './organization-changes.js';
import { OrganizationRolesRepository } from './organization-roles.repository.js';

const NAME_TAKEN = /UQ_organization_(roles|permissions)_name/;

function isNameTaken(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === '23505' && typeof constraint === 'string' && NAME_TAKEN.test(constraint);
}

/**
 * The one template of organization roles and permissions, under the instance's `roles.*`
 * permissions. Apart from the instance's: an id of an instance permission in a role's
 * `permission_ids` is 400 like any unknown id. `owner` keeps every organization permission
 * (403 `SYSTEM_PROTECTED`), and every new one is given to it at once. A change of a role's
 * permissions reaches every member holding it (one event per membership).
 */
@Injectable()
export class OrganizationTemplateService {
  constructor(
    private readonly roles: OrganizationRolesRepository,
    private readonly memberships: MembershipsRepository,
    private readonly changes: OrganizationChanges,
    private readonly versions: AuthzVersions,
    private readonly transactions: Transactions,
    private readonly audit: AuditLog,
  ) {}

  async listRoles() {
    const items = (await this.roles.listRoles()).map(toRoleResponse);
    return { items, total: items.length };
  }

  async getRole(id: string) {
    const role = await this.roles.findRole(id);
    if (!role) throw notFound('Organization role');
    return toRoleResponse(role);
  }

  async createRole(actor: AuthUser, dto: CreateRoleDto) {
    const id = await this.write(async (manager) => {
      await this.organizationPermissions(manager, dto.permission_ids ?? []);
      const id = await this.roles.insertRole(manager, {
        name: dto.name,
        displayName: dto.display_name ?? null,
        description: dto.description ?? null,
      });
      await this.roles.setRolePermissions(manager, id, dto.permission_ids ?? []);
      return { result: id, changed: [] };
    });
    await this.record(actor, 'organization_role.create', 'organization_role', id, { name: dto.name });
    return this.getRole(id);
  }

  async updateRole(actor: AuthUser, id: string, dto: UpdateRoleDto) {
    await this.write(async (manager) => {
      const role = await this.roles.lockRole(manager, id);
      if (!role) throw notFound('Organization role');
      if (role.isSystem && dto.name !== undefined && dto.name !== role.name) throw systemProtected('role', 'renamed');
      let changed: ChangedMembership[] = [];
      if (dto.permission_ids !== undefined) {
        const next = await this.organizationPermissions(manager, dto.permission_ids);
        if (role.name === OrganizationRoles.Owner) {
          const kept = new Set(next.map((permission) => permission.id));
          const removed = role.permissions.filter((permission) => !kept.has(permission.id));
          if (removed.length > 0)
            throw new AppException(
              'SYSTEM_PROTECTED',
              `The owner role keeps every organization permission; ${removed[0].name} cannot be removed from it.`,
            );
        }
        await this.roles.setRolePermissions(manager, id, dto.permission_ids);
        changed = await this.memberships.holdersOfRole(manager, id);
        await this.changes.announce(manager, changed);
      }
      await this.roles.updateRole(manager, id, {
        name: dto.name,
        displayName: dto.display_name,
        description: dto.description,
      });
      return { result: id, changed };
    });
    await this.record(actor, 'organization_role.update', 'organization_role', id, {});
    return this.getRole(id);
  }

  async deleteRole(actor: AuthUser, id: string): Promise<Record<string, never>> {
    await this.write(async (manager) => {
      const role = await this.roles.lockRole(manager, id);
      if (!role) throw notFound('Organization role');
      if (role.isSystem) throw systemProtected('role', 'deleted');
      const changed = await this.memberships.holdersOfRole(manager, id);
      await this.changes.announce(manager, changed);
      await this.roles.deleteRole(manager, id);
      return { result: id, changed };
    });
    await this.record(actor, 'organization_role.delete', 'organization_role', id, {});
    return {};
  }

  async listPermissions() {
    const items = (await this.roles.listPermissions()).map(toPermissionResponse);
    return { items, total: items.length };
  }

  async getPermission(id: string) {
    const permission = await this.roles.findPermission(id);
    if (!permission) throw notFound('Organization permission');
    return toPermissionResponse(permission);
  }

  async createPermission(actor: AuthUser, dto: CreatePermissionDto) {
    const id = await this.write(async (manager) => ({
      result: await this.roles.insertPermission(manager, {
        name: dto.name,
        displayName: dto.display_name ?? null,
        description: dto.description ?? null,
        groupName: dto.group_name ?? null,
      }),
      changed: [],
    }));
    await this.record(actor, 'organization_permission.create', 'organization_permission', id, { name: dto.name });
    return this.getPermission(id);
  }

  async updatePermission(actor: AuthUser, id: string, dto: UpdatePermissionDto) {
    await this.write(async (manager) => {
      const permission = await this.roles.findPermission(id, manager);
      if (!permission) throw notFound('Organization permission');
      if (permission.isSystem && dto.name !== undefined && dto.name !== permission.name)
        throw systemProtected('permission', 'renamed');
      const changed = dto.name !== undefined ? await this.holdersOfPermission(manager, id) : [];
      await this.changes.announce(manager, changed);
      await this.roles.updatePermission(manager, id, {
        name: dto.name,
        displayName: dto.display_name,
        description: dto.description,
        groupName: dto.group_name,
      });
      return { result: id, changed };
    });
    await this.record(actor, 'organization_permission.update', 'organization_permission', id, {});
    return this.getPermission(id);
  }

  async deletePermission(actor: AuthUser, id: string): Promise<Record<string, never>> {
    await this.write(async (manager) => {
      const permission = await this.roles.findPermission(id, manager);
      if (!permission) throw notFound('Organization permission');
      if (permission.isSystem) throw systemProtected('permission', 'deleted');
      const changed = await this.holdersOfPermission(manager, id);
      await this.changes.announce(manager, changed);
      await this.roles.deletePermission(manager, id);
      return { result: id, changed };
    });
    await this.record(actor, 'organization_permission.delete', 'organization_permission', id, {});
    return {};
  }

  /** The organization permissions of `ids`; any other id (unknown, or an instance permission's) is 400. */
  private async organizationPermissions(manager: EntityManager, ids: string[]) {
    const found = await this.roles.findPermissions(manager, ids);
    const known = new Set(found.map((permission) => permission.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0) throw unknownIds('permission_ids', unknown);
    return found;
  }

  private async holdersOfPermission(manager: EntityManager, permissionId: string): Promise<ChangedMembership[]> {
    const holders: ChangedMembership[] = [];
    for (const roleId of await this.roles.rolesWithPermission(manager, permissionId))
      holders.push(...(await this.memberships.holdersOfRole(manager, roleId)));
    return holders;
  }

  /** One transaction; a taken name is 409; after the commit every cached caller is stale (a template change reaches everyone). */
  private async write<T>(work: (manager: EntityManager) => Promise<{ result: T; changed: ChangedMembership[] }>) {
    let outcome: { result: T; changed: ChangedMembership[] };
    try {
      outcome = await this.transactions.run(work);
    } catch (error) {
      if (isNameTaken(error)) throw new AppException('CONFLICT', 'This name is already taken.');
      throw error;
    }
    await this.versions.bumpGlobal();
    await this.changes.published(outcome.changed);
    return outcome.result;
  }

  private record(
    actor: AuthUser,
    type:
      | 'organization_role.create'
      | 'organization_role.update'
      | 'organization_role.delete'
      | 'organization_permission.create'
      | 'organization_permission.update'
      | 'organization_permission.delete',
    targetType: 'organization_role' | 'organization_permission',
    targetId: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    return this.audit.recordChange(type, actor, { type: targetType, id: targetId }, details);
  }
}
