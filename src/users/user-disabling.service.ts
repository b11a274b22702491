import { AdminUsersRepository } from './admin-users.repository.js';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';
import { AppException } from '../common/app-exception.js';
import { AuditLog } from '../audit/index.js';
import { assertMayActOn, notFound, RolesRepository, AccessRepository, UserRolesRepository } from '../rbac/index.js';
import { IdentityChangeService } from '../account/index.js';
import type { ClientInfo } from '../common/client-info.js';
import { UsersRepository } from '../identity/index.js';
import { toUserResponse, type UserResponse } from './user-response.js';
import { Transactions } from '../infra/database/transactions.js';
import type { Actor } from '../common/actor.js';

/** Who disables: an administrator (judged by the privilege policy), or the operator at the CLI (`null`). */
/** Who disables or enables: an administrator or a service client (their permissions), or the operator at the command line (null). */
export type DisablingActor = (Actor & { permissions: readonly string[] }) | null;

export interface Disabling {
  reason?: string | null;
  /** When the disabling ends by itself; absent, it lasts until the account is enabled. */
  until?: Date | null;
}

/**
 * Disabling and enabling accounts (Keycloak's `enabled`, Supabase's ban). A disabled account
 * signs in by no method (identity/account-status.ts) and everything issued to it ends at once,
 * through the path identity changes take. The last enabled holder of the admin role stays enabled.
 */
@Injectable()
export class UserDisablingService {
  constructor(
    private readonly adminUsers: AdminUsersRepository,
    private readonly userRoles: UserRolesRepository,
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly access: AccessRepository,
    private readonly roles: RolesRepository,
    private readonly identityChange: IdentityChangeService,
    private readonly audit: AuditLog,
  ) {}

  async disable(
    userId: string,
    disabling: Disabling,
    actor: DisablingActor,
    client: ClientInfo = {},
  ): Promise<UserResponse> {
    const until = disabling.until ?? null;
    if (until !== null && until.getTime() <= Date.now()) {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'until', message: 'until must be a moment in the future' },
      ]);
    }
    const user = await this.transactions.run(async (manager) => {
      // The admin role's row first, as deleting a user and removing a role take it: two requests
      // that would each leave the other as the last administrator take turns.
      await this.roles.lockRoleByName(manager, SystemRoles.Admin);
      await this.lockTarget(manager, userId, actor, 'user.disable');
      if (await this.userRoles.isLastEnabledHolder(manager, userId, SystemRoles.Admin)) {
        throw new AppException('CONFLICT', 'The last enabled administrator cannot be disabled.');
      }
      await this.users.setDisabled(manager, userId, { until, reason: disabling.reason ?? null });
      await this.identityChange.endIssued(manager, userId, 'disabled');
      return this.adminUsers.findAdminUser(userId, manager);
    });
    await this.identityChange.endedAfterCommit(userId);
    await this.audit.record({
      type: 'user.disable',
      actorId: actor?.id ?? null,
      actorKind: actor?.kind,
      targetType: 'user',
      targetId: userId,
      client,
      details: { until: until?.toISOString() ?? null, ...(actor ? {} : { via: 'cli' }) },
    });
    return toUserResponse(user!);
  }

  async enable(userId: string, actor: DisablingActor, client: ClientInfo = {}): Promise<UserResponse> {
    const user = await this.transactions.run(async (manager) => {
      await this.lockTarget(manager, userId, actor, 'user.enable');
      await this.users.clearDisabled(manager, userId);
      return this.adminUsers.findAdminUser(userId, manager);
    });
    await this.identityChange.endedAfterCommit(userId);
    await this.audit.record({
      type: 'user.enable',
      actorId: actor?.id ?? null,
      actorKind: actor?.kind,
      targetType: 'user',
      targetId: userId,
      client,
      ...(actor ? {} : { details: { via: 'cli' } }),
    });
    return toUserResponse(user!);
  }

  /** The account, locked; 404 when there is none; "target ⊆ own" for an administrator. */
  private async lockTarget(manager: EntityManager, userId: string, actor: DisablingActor, action: string) {
    if (!(await this.users.lockUserRow(manager, userId))) throw notFound('User');
    if (!actor) return;
    const own = await this.access.permissionsOfActor(actor, manager);
    const target = await this.access.findEffectiveAccess(userId, manager);
    assertMayActOn(
      { id: actor.id, kind: actor.kind, permissions: own },
      { type: 'user', id: userId },
      target?.permissions ?? [],
      action,
    );
  }
}
