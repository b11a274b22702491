import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditLog } from '../audit/audit-log.service.js';
import { assertMayActOn, type PolicyActor } from '../authz/privilege-refusal.js';
import { AppException } from '../common/app-exception.js';
import { asConflict } from '../common/unique-violation.js';
import { AuthzVersions } from './authz-versions.js';
import { Permission } from './permission.entity.js';
import { SystemRoles } from '@auth-rbac/nest-guard';
import type { CreatePermissionDto, UpdatePermissionDto } from './rbac.dto.js';
import { notFound, systemProtected } from './rbac-errors.js';
import { toPermissionResponse, type PermissionResponse } from './rbac.responses.js';

/**
 * Permissions (`resource.action`). The admin role holds every one, including new ones. Editing or
 * deleting a permission needs holding it (the privilege policy's "target ⊆ own").
 */
@Injectable()
export class PermissionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
  ) {}

  async list(): Promise<{ items: PermissionResponse[]; total: number }> {
    const permissions = await this.dataSource
      .getRepository(Permission)
      .find({ order: { groupName: 'ASC', name: 'ASC' } });
    return { items: permissions.map(toPermissionResponse), total: permissions.length };
  }

  async get(id: string): Promise<PermissionResponse> {
    const permission = await this.dataSource.getRepository(Permission).findOne({ where: { id } });
    if (!permission) throw notFound('Permission');
    return toPermissionResponse(permission);
  }

  async create(dto: CreatePermissionDto, actorId: string): Promise<PermissionResponse> {
    const id = await this.writing(async (manager) => {
      const [{ id }] = await manager.query(
        `INSERT INTO permissions (name, display_name, description, group_name) VALUES ($1, $2, $3, $4) RETURNING id`,
        [dto.name, dto.display_name ?? null, dto.description ?? null, dto.group_name ?? null],
      );
      await manager.query(
        `INSERT INTO role_permissions (role_id, permission_id) SELECT id, $1 FROM roles WHERE name = $2`,
        [id, SystemRoles.Admin],
      );
      return id as string;
    });
    await this.versions.bumpGlobal();
    await this.audit.record({
      type: 'permission.create',
      actorId,
      targetType: 'permission',
      targetId: id,
      details: { name: dto.name },
    });
    return this.get(id);
  }

  async update(id: string, dto: UpdatePermissionDto, actor: PolicyActor): Promise<PermissionResponse> {
    await this.writing(async (manager) => {
      const permission = await manager
        .getRepository(Permission)
        .findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!permission) throw notFound('Permission');
      assertMayActOn(actor, { type: 'permission', id }, [permission.name], 'permission.update');
      if (dto.name !== undefined && dto.name !== permission.name && permission.isSystem) {
        throw systemProtected('permission', 'renamed');
      }
      await manager.update(
        Permission,
        { id },
        {
          ...(dto.name !== undefined && { name: dto.name }),
          ...(dto.display_name !== undefined && { displayName: dto.display_name }),
          ...(dto.description !== undefined && { description: dto.description }),
          ...(dto.group_name !== undefined && { groupName: dto.group_name }),
          updatedAt: new Date(),
        },
      );
    });
    await this.versions.bumpGlobal();
    await this.audit.record({
      type: 'permission.update',
      actorId: actor.id,
      targetType: 'permission',
      targetId: id,
      details: { fields: Object.keys(dto) },
    });
    return this.get(id);
  }

  async delete(id: string, actor: PolicyActor): Promise<Record<string, never>> {
    await this.dataSource.transaction(async (manager) => {
      const permission = await manager
        .getRepository(Permission)
        .findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!permission) throw notFound('Permission');
      assertMayActOn(actor, { type: 'permission', id }, [permission.name], 'permission.delete');
      if (permission.isSystem) throw systemProtected('permission', 'deleted');
      await manager.delete(Permission, { id });
    });
    await this.versions.bumpGlobal();
    await this.audit.record({ type: 'permission.delete', actorId: actor.id, targetType: 'permission', targetId: id });
    return {};
  }

  private async writing<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (error) {
      throw asConflict(error);
    }
  }
}
