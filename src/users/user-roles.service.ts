import { SecurityEventsRepository } from '../events/index.js';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditLog } from '../audit/index.js';
import {
  assertMayActOn,
  assertMayAssignAdminRole,
  assertMayGrant,
  AuthzVersions,
  notFound,
  unknownIds,
  RolesRepository,
  AccessRepository,
  UserRolesRepository,
} from '../rbac/index.js';
import { AppException } from '../common/app-exception.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';
import { UsersRepository } from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { byName } from '../common/by-name.js';

type RoleRef = { id: string; name: string };

/**
 * Assigning roles to users. Touching the admin role additionally needs `roles.edit`; the actor must
 * hold every permission of the user (target ⊆ own) and of each role given (grant ⊆ own); the last
 * holder of admin cannot lose it.
 */
@Injectable()
export class UserRolesService {
  constructor(
    private readonly userRoles: UserRolesRepository,
    private readonly transactions: Transactions,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
    private readonly users: UsersRepository,
    private readonly access: AccessRepository,
    private readonly rolesRepository: RolesRepository,
    private readonly events: SecurityEventsRepository,
  ) {}

  /** Adds roles; already held ones are left as they are. */
  add(actor: AuthUser, userId: string, roleIds: string[]): Promise<{ roles: RoleRef[] }> {
    return this.change(actor, userId, async (manager, current) => {
      const roles = await this.findRoles(manager, roleIds);
      if (roles.some((role) => role.name === SystemRoles.Admin))
        assertMayAssignAdminRole(actor, userTarget(userId), 'user.roles');
      const next = new Map(current.map((role) => [role.id, role]));
      for (const role of roles) next.set(role.id, role);
      return [...next.values()];
    });
  }

  /** Replaces the whole set. */
  replace(actor: AuthUser, userId: string, roleIds: string[]): Promise<{ roles: RoleRef[] }> {
    return this.change(actor, userId, async (manager, current) => {
      const roles = await this.findRoles(manager, roleIds);
      // Granting, keeping or taking away admin through a replacement all count as assigning it.
      if ([...roles, ...current].some((role) => role.name === SystemRoles.Admin))
        assertMayAssignAdminRole(actor, userTarget(userId), 'user.roles');
      return roles;
    });
  }

  remove(actor: AuthUser, userId: string, roleId: string): Promise<{ roles: RoleRef[] }> {
    return this.change(actor, userId, async (manager, current) => {
      const [role] = await this.findRoles(manager, [roleId], 'NOT_FOUND');
      if (role.name === SystemRoles.Admin) assertMayAssignAdminRole(actor, userTarget(userId), 'user.roles');
      return current.filter((held) => held.id !== roleId);
    });
  }

  private async change(
    actor: AuthUser,
    userId: string,
    decide: (manager: EntityManager, current: RoleRef[]) => Promise<RoleRef[]>,
  ): Promise<{ roles: RoleRef[] }> {
    const roles = await this.transactions.run(async (manager) => {
      await this.rolesRepository.lockRoleByName(manager, SystemRoles.Admin);
      const user = await this.users.lockUserRow(manager, userId);
      if (!user) throw notFound('User');
      const current: RoleRef[] = await this.userRoles.rolesOf(manager, userId);
      const next = await decide(manager, current);
      await this.assertWithinActorsPermissions(manager, actor, userId, current, next);
      const losesAdmin =
        current.some((role) => role.name === SystemRoles.Admin) &&
        !next.some((role) => role.name === SystemRoles.Admin);
      // A disabled holder cannot administer: the admin role stays with an enabled account.
      if (losesAdmin && (await this.userRoles.countOtherEnabledHolders(manager, userId, SystemRoles.Admin)) === 0) {
        throw new AppException('CONFLICT', 'The last administrator cannot lose the admin role.');
      }
      await this.userRoles.setRoles(
        manager,
        userId,
        next.map((role) => role.id),
      );
      await this.events.append(manager, [{ type: 'assignment-change', sub: userId }]);
      return next;
    });
    await this.versions.bumpUser(userId);
    await this.audit.recordChange(
      'user.roles',
      actor,
      { type: 'user', id: userId },
      { roles: roles.map((role) => role.name).sort() },
    );
    return { roles: roles.map(({ id, name }) => ({ id, name })).sort(byName) };
  }

  /**
   * The privilege policy: the user's permissions now (target ⊆ own) and those of every role given
   * (grant ⊆ own) must all be the actor's own.
   */
  private async assertWithinActorsPermissions(
    manager: EntityManager,
    actor: AuthUser,
    userId: string,
    current: RoleRef[],
    next: RoleRef[],
  ): Promise<void> {
    const target = await this.access.findEffectiveAccess(userId, manager);
    assertMayActOn(actor, userTarget(userId), target?.permissions ?? [], 'user.roles');
    const held = new Set(current.map((role) => role.id));
    const added = next.filter((role) => !held.has(role.id)).map((role) => role.id);
    if (added.length === 0) return;
    const granted = await this.rolesRepository.permissionNamesOfRoles(manager, added);
    assertMayGrant(actor, userTarget(userId), granted, 'user.roles');
  }

  /** Unknown ids in a body are a bad request; an unknown id in the path is not found. */
  private async findRoles(
    manager: EntityManager,
    ids: string[],
    missing: 'VALIDATION_FAILED' | 'NOT_FOUND' = 'VALIDATION_FAILED',
  ) {
    const roles = ids.length ? await this.rolesRepository.findRolesByIds(manager, ids) : [];
    if (roles.length !== ids.length) {
      if (missing === 'NOT_FOUND') throw notFound('Role');
      const known = new Set(roles.map((role) => role.id));
      throw unknownIds(
        'role_ids',
        ids.filter((id) => !known.has(id)),
      );
    }
    return roles as RoleRef[];
  }
}

const userTarget = (id: string) => ({ type: 'user' as const, id });
