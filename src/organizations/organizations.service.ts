import type { AuthUser } from '@auth-rbac/nest-guard';
import { OrganizationPermissions, Permissions } from '@auth-rbac/nest-guard';
import { Injectable } from '@nestjs/common';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { AuditLog } from '../audit/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { MembershipsRepository, type RoleRef } from './memberships.repository.js';
import { OrganizationAccess, organizationNotFound } from './organization-access.js';
import { OrganizationChanges } from './organization-changes.js';
import { OrganizationRolesRepository } from './organization-roles.repository.js';
import { OrganizationsRepository, type OrganizationRow } from './organizations.repository.js';
import type { CreateOrganizationDto, ListOrganizationsQuery, UpdateOrganizationDto } from './organizations.dto.js';
import { pageOf, pageOffset, type Page } from '../common/pagination.dto.js';
import { OrganizationRoles } from '@auth-rbac/nest-guard/internal';

export interface OrganizationResponse {
  id: string;
  slug: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export function toOrganizationResponse(row: OrganizationRow): OrganizationResponse {
  return { id: row.id, slug: row.slug, name: row.name, created_at: row.createdAt, updated_at: row.updatedAt };
}

const SLUG_TAKEN = () => new AppException('CONFLICT', 'An organization with this slug already exists.');

/** PostgreSQL's duplicate key on the slug's unique constraint. */
function isSlugTaken(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === 'UQ_organizations_slug';
}

/** Organizations themselves: create (the creator its owner), the caller's list, read, rename, delete. */
@Injectable()
export class OrganizationsService {
  constructor(
    private readonly organizations: OrganizationsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly roles: OrganizationRolesRepository,
    private readonly access: OrganizationAccess,
    private readonly changes: OrganizationChanges,
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  async create(caller: AuthUser, dto: CreateOrganizationDto): Promise<OrganizationResponse> {
    const allowed =
      caller.kind === 'person' &&
      caller.organizationId === undefined &&
      (this.config.organizations.selfService || caller.has(Permissions.OrganizationsCreate));
    if (!allowed)
      throw new AppException('FORBIDDEN', `Missing permission: ${Permissions.OrganizationsCreate}.`, [
        { permission: Permissions.OrganizationsCreate },
      ]);
    return toOrganizationResponse(await this.createWithOwner(dto, caller.id, caller.id));
  }

  /** A new organization and its first owner (the creator, or the CLI's `--owner`). */
  async createWithOwner(dto: { slug: string; name: string }, ownerId: string, actorId: string | null) {
    const owner = await this.roles.findRoleByName(OrganizationRoles.Owner);
    if (!owner) throw new Error('the seeded owner role is missing');
    let organization: OrganizationRow;
    try {
      organization = await this.transactions.run(async (manager) => {
        const row = await this.organizations.insert(manager, dto);
        await this.memberships.insert(manager, row.id, ownerId, [owner.id]);
        await this.changes.announce(manager, [{ organizationId: row.id, userId: ownerId }]);
        return row;
      });
    } catch (error) {
      if (isSlugTaken(error)) throw SLUG_TAKEN();
      throw error;
    }
    await this.changes.published([{ organizationId: organization.id, userId: ownerId }]);
    await this.audit.record({
      type: 'organization.create',
      actorId,
      targetType: 'organization',
      targetId: organization.id,
      details: { slug: organization.slug, owner: ownerId },
    });
    return organization;
  }

  async listMine(caller: AuthUser): Promise<{ items: (OrganizationResponse & { roles: RoleRef[] })[]; total: number }> {
    const rows = caller.kind === 'person' ? await this.memberships.organizationsOf(caller.id) : [];
    // Under an organization token the caller works in that organization alone.
    const visible = caller.organizationId === undefined ? rows : rows.filter((row) => row.id === caller.organizationId);
    const items = visible.map((row) => ({ ...toOrganizationResponse(row), roles: row.roles }));
    return { items, total: items.length };
  }

  /** Every organization, for instance administrators (`organizations.view`, checked by the route). */
  async listAll(query: ListOrganizationsQuery): Promise<Page<OrganizationResponse>> {
    const search = query.search?.trim() || undefined;
    const [rows, total] = await Promise.all([
      this.organizations.findPage(pageOffset(query), query.limit, search),
      this.organizations.count(search),
    ]);
    return pageOf(query, rows.map(toOrganizationResponse), total);
  }

  async get(caller: AuthUser, id: string): Promise<OrganizationResponse> {
    await this.access.judge(caller, id, OrganizationPermissions.OrganizationView);
    const row = await this.organizations.findById(id);
    if (!row) throw organizationNotFound();
    return toOrganizationResponse(row);
  }

  async update(caller: AuthUser, id: string, dto: UpdateOrganizationDto): Promise<OrganizationResponse> {
    const actor = await this.access.judge(caller, id, OrganizationPermissions.OrganizationEdit);
    let row: OrganizationRow;
    try {
      row = await this.transactions.run(async (manager) => {
        if (!(await this.organizations.lock(manager, id))) throw organizationNotFound();
        return this.organizations.update(manager, id, dto);
      });
    } catch (error) {
      if (isSlugTaken(error)) throw SLUG_TAKEN();
      throw error;
    }
    await this.audit.recordChange(
      'organization.update',
      caller,
      { type: 'organization', id },
      { slug: row.slug, as_administrator: actor.asAdministrator },
    );
    return toOrganizationResponse(row);
  }

  async delete(caller: AuthUser, id: string): Promise<Record<string, never>> {
    const actor = await this.access.judge(caller, id, OrganizationPermissions.OrganizationDelete);
    const changed = await this.transactions.run(async (manager) => {
      if (!(await this.organizations.lock(manager, id))) throw organizationNotFound();
      const members = (await this.memberships.memberIds(manager, id)).map((userId) => ({ organizationId: id, userId }));
      await this.changes.announce(manager, members);
      await this.organizations.delete(manager, id);
      return members;
    });
    await this.changes.published(changed);
    await this.audit.recordChange(
      'organization.delete',
      caller,
      { type: 'organization', id },
      { as_administrator: actor.asAdministrator },
    );
    return {};
  }
}
