import type { AuthUser } from '@auth-rbac/nest-guard';
import { OrganizationPermissions } from '@auth-rbac/nest-guard';
import { OrganizationRoles } from '@auth-rbac/nest-guard/internal';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditLog } from '../audit/index.js';
import { AppException } from '../common/app-exception.js';
import { pageOf, pageOffset, type PageQuery } from '../common/pagination.dto.js';
import { UsersRepository } from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { assertMayActOn, assertMayGrant, notFound, unknownIds } from '../rbac/index.js';
import { MembershipsRepository, type RoleRef } from './memberships.repository.js';
import {
  actsAsOwner,
  OrganizationAccess,
  organizationNotFound,
  type OrganizationActor,
} from './organization-access.js';
import { OrganizationChanges } from './organization-changes.js';
import { OrganizationRolesRepository, type OrganizationRoleRow } from './organization-roles.repository.js';
import { OrganizationsRepository } from './organizations.repository.js';
import { byName } from '../common/by-name.js';

export interface MemberResponse {
  user_id: string;
  name: string;
  email: string;
  roles: RoleRef[];
  joined_at: Date;
}

/** A change of a member by a caller, as the organization judged the caller there. */
interface MemberChange {
  caller: AuthUser;
  actor: OrganizationActor;
  /** The member. */
  userId: string;
  action: 'organization.member_roles' | 'organization.member_remove';
}

const memberNotFound = () => new AppException('NOT_FOUND', 'Member not found.');
const lastOwner = () =>
  new AppException('CONFLICT', 'The last owner of an organization cannot leave, lose owner or be removed.');
const ownersOnly = () => new AppException('FORBIDDEN', 'Only an owner can change an owner, or make one.');

/**
 * The members of an organization and their roles, under the instance's privilege policy applied
 * inside the organization: a member gives only roles whose permissions they hold there (grant ⊆
 * own), acts only on members holding no more than they do (target ⊆ own), never changes their own
 * roles, and only an owner touches an owner. Instance administrators (`organizations.edit`) manage
 * any organization. The last owner stays. Every change locks the organization's row first.
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly organizations: OrganizationsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly roles: OrganizationRolesRepository,
    private readonly users: UsersRepository,
    private readonly access: OrganizationAccess,
    private readonly changes: OrganizationChanges,
    private readonly transactions: Transactions,
    private readonly audit: AuditLog,
  ) {}

  async list(caller: AuthUser, organizationId: string, query: PageQuery) {
    await this.access.judge(caller, organizationId, OrganizationPermissions.MembersView);
    const [rows, total] = await Promise.all([
      this.memberships.members(organizationId, pageOffset(query), query.limit),
      this.memberships.countMembers(organizationId),
    ]);
    const items: MemberResponse[] = rows.map((row) => ({
      user_id: row.userId,
      name: row.name,
      email: row.email,
      roles: row.roles,
      joined_at: row.joinedAt,
    }));
    return pageOf(query, items, total);
  }

  /** Instance administrators only (`organizations.edit`); members add people by invitation. */
  async add(
    caller: AuthUser,
    organizationId: string,
    userId: string,
    roleIds: string[],
  ): Promise<{ roles: RoleRef[] }> {
    const actor = await this.access.judge(caller, organizationId, OrganizationPermissions.MembersEdit);
    if (!actor.asAdministrator)
      throw new AppException('FORBIDDEN', 'Only an instance administrator adds people directly; members invite them.', [
        { permission: 'organizations.edit' },
      ]);
    const roles = await this.insert(organizationId, userId, roleIds);
    await this.record(caller, actor, 'organization.member_add', organizationId, userId, roles);
    return { roles: refs(roles) };
  }

  /** The CLI's `add-member`: the operator at the command line is trusted, as for `create-admin`. */
  async addByOperator(organizationId: string, userId: string, roleIds: string[]): Promise<{ roles: RoleRef[] }> {
    const roles = await this.insert(organizationId, userId, roleIds);
    await this.audit.record({
      type: 'organization.member_add',
      targetType: 'organization',
      targetId: organizationId,
      details: { user_id: userId, roles: roles.map((role) => role.name).sort(), by: 'cli' },
    });
    return { roles: refs(roles) };
  }

  private async insert(organizationId: string, userId: string, roleIds: string[]): Promise<OrganizationRoleRow[]> {
    const roles = await this.transactions.run(async (manager) => {
      if (!(await this.organizations.lock(manager, organizationId))) throw organizationNotFound();
      if (!(await this.users.lockUserRow(manager, userId))) throw notFound('User');
      if (await this.memberships.isMember(manager, organizationId, userId))
        throw new AppException('CONFLICT', 'This person is already a member.');
      const given = await this.organizationRoles(manager, roleIds);
      await this.memberships.insert(manager, organizationId, userId, roleIds);
      await this.changes.announce(manager, [{ organizationId, userId }]);
      return given;
    });
    await this.changes.published([{ organizationId, userId }]);
    return roles;
  }

  async setRoles(
    caller: AuthUser,
    organizationId: string,
    userId: string,
    roleIds: string[],
  ): Promise<{ roles: RoleRef[] }> {
    const roles = await this.transactions.run(async (manager) => {
      if (!(await this.organizations.lock(manager, organizationId))) throw organizationNotFound();
      // Judged after the lock, so a change made a moment ago by someone else counts.
      const actor = await this.access.judge(caller, organizationId, OrganizationPermissions.MembersEdit, manager);
      const current = await this.currentRoles(manager, organizationId, userId);
      const next = await this.organizationRoles(manager, roleIds);
      if (!actor.asAdministrator) {
        if (userId === caller.id)
          throw new AppException('FORBIDDEN', 'You cannot change your own roles in an organization.');
        const change: MemberChange = { caller, actor, userId, action: 'organization.member_roles' };
        await this.applyPolicy(manager, assertMayActOn, change, current);
        const held = new Set(ids(current));
        const added = next.filter((role) => !held.has(role.id));
        await this.applyPolicy(manager, assertMayGrant, change, added);
        if ((hasOwner(current) || hasOwner(next)) && !actsAsOwner(actor)) throw ownersOnly();
      }
      if (hasOwner(current) && !hasOwner(next)) await this.keepAnOwner(manager, organizationId, userId);
      await this.memberships.setRoles(manager, organizationId, userId, ids(next));
      await this.changes.announce(manager, [{ organizationId, userId }]);
      return { next, actor };
    });
    await this.changes.published([{ organizationId, userId }]);
    await this.record(caller, roles.actor, 'organization.member_roles', organizationId, userId, roles.next);
    return { roles: refs(roles.next) };
  }

  /** Removing a member (`members.remove`), or leaving (oneself). */
  async remove(caller: AuthUser, organizationId: string, userId: string): Promise<Record<string, never>> {
    const leaving = caller.kind === 'person' && userId === caller.id;
    const actor = await this.transactions.run(async (manager) => {
      if (!(await this.organizations.lock(manager, organizationId))) throw organizationNotFound();
      const judged = await this.access.judge(
        caller,
        organizationId,
        leaving ? null : OrganizationPermissions.MembersRemove,
        manager,
      );
      const current = await this.currentRoles(manager, organizationId, userId);
      if (!leaving && !judged.asAdministrator) {
        const change: MemberChange = { caller, actor: judged, userId, action: 'organization.member_remove' };
        await this.applyPolicy(manager, assertMayActOn, change, current);
        if (hasOwner(current) && !actsAsOwner(judged)) throw ownersOnly();
      }
      if (hasOwner(current)) await this.keepAnOwner(manager, organizationId, userId);
      await this.changes.announce(manager, [{ organizationId, userId }]);
      await this.memberships.delete(manager, organizationId, userId);
      return judged;
    });
    await this.changes.published([{ organizationId, userId }]);
    await this.record(caller, actor, 'organization.member_remove', organizationId, userId, [], { leaving });
    return {};
  }

  /** The organization roles of `roleIds`; any other id (unknown, or an instance role's) is 400. */
  async organizationRoles(manager: EntityManager, roleIds: string[]): Promise<OrganizationRoleRow[]> {
    const found = await this.roles.findRoles(manager, roleIds);
    const known = new Set(found.map((role) => role.id));
    const unknown = roleIds.filter((id) => !known.has(id));
    if (unknown.length > 0) throw unknownIds('role_ids', unknown);
    return found;
  }

  private async currentRoles(manager: EntityManager, organizationId: string, userId: string): Promise<RoleRef[]> {
    if (!(await this.memberships.isMember(manager, organizationId, userId))) throw memberNotFound();
    return this.memberships.rolesOf(manager, organizationId, userId);
  }

  /**
   * The privilege policy inside the organization, for a member who is no instance administrator:
   * `rule` (target ⊆ own, or grant ⊆ own) on the permissions that `roles` hold there.
   */
  private async applyPolicy(
    manager: EntityManager,
    rule: typeof assertMayActOn | typeof assertMayGrant,
    { caller, actor, userId, action }: MemberChange,
    roles: RoleRef[],
  ): Promise<void> {
    rule(
      { id: caller.id, kind: caller.kind, permissions: actor.permissions },
      { type: 'membership', id: userId },
      await this.roles.permissionNamesOfRoles(manager, ids(roles)),
      action,
    );
  }

  private async keepAnOwner(manager: EntityManager, organizationId: string, userId: string): Promise<void> {
    if ((await this.memberships.countHolders(manager, organizationId, OrganizationRoles.Owner, userId)) === 0)
      throw lastOwner();
  }

  private record(
    caller: AuthUser,
    actor: OrganizationActor,
    type: 'organization.member_add' | 'organization.member_roles' | 'organization.member_remove',
    organizationId: string,
    userId: string,
    roles: RoleRef[],
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    return this.audit.recordChange(
      type,
      caller,
      { type: 'organization', id: organizationId },
      {
        user_id: userId,
        roles: roles.map((role) => role.name).sort(),
        as_administrator: actor.asAdministrator,
        ...extra,
      },
    );
  }
}

const ids = (roles: RoleRef[]) => roles.map((role) => role.id);
const hasOwner = (roles: RoleRef[]) => roles.some((role) => role.name === OrganizationRoles.Owner);
const refs = (roles: RoleRef[]) => roles.map(({ id, name }) => ({ id, name })).sort(byName);
