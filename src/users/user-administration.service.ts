import { AdminUsersRepository } from './admin-users.repository.js';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PasswordHasher, UsersRepository } from '../identity/index.js';
import { AuditLog } from '../audit/index.js';
import {
  assertMayActOn,
  assertMayGrant,
  AuthzVersions,
  notFound,
  RolesRepository,
  AccessRepository,
  UserRolesRepository,
  NewAccounts,
  type PolicyActor,
} from '../rbac/index.js';
import type { ClientInfo } from '../common/client-info.js';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';
import { asConflict } from '../common/unique-violation.js';
import { pageOf, pageOffset, type Page } from '../common/pagination.dto.js';
import type { CreateUserDto, ListUsersQuery, UpdateUserDto } from './users.dto.js';
import { AccountDeletionService, IdentityChangeService } from '../account/index.js';
import { Transactions } from '../infra/database/transactions.js';

import { toUserResponse, type UserResponse } from './user-response.js';

export type { UserResponse };

/** Users as administrators see them: never a password or hash. */
@Injectable()
export class UserAdministrationService {
  constructor(
    private readonly adminUsers: AdminUsersRepository,
    private readonly newAccounts: NewAccounts,
    private readonly userRoles: UserRolesRepository,
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly access: AccessRepository,
    private readonly passwords: PasswordHasher,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
    private readonly identityChange: IdentityChangeService,
    private readonly roles: RolesRepository,
    private readonly deletion: AccountDeletionService,
  ) {}

  async list(query: ListUsersQuery): Promise<Page<UserResponse>> {
    const { items, total } = await this.adminUsers.findAdminPage(query.search, query.limit, pageOffset(query));
    return pageOf(query, items.map(toUserResponse), total);
  }

  async get(id: string, manager?: EntityManager): Promise<UserResponse> {
    const user = await this.adminUsers.findAdminUser(id, manager);
    if (!user) throw notFound('User');
    return toUserResponse(user);
  }

  async create(dto: CreateUserDto, actor: PolicyActor): Promise<UserResponse> {
    const passwordHash = await this.passwords.hash(dto.password);
    // An address an administrator typed counts as verified, as one changed by an administrator does.
    const user = await this.conflictsAsHttp(() =>
      this.transactions.run(async (manager) => {
        const created = await this.newAccounts.create(
          manager,
          { name: dto.name, email: dto.email, mobile: dto.mobile ?? null, passwordHash, emailVerified: true },
          SystemRoles.User,
        );
        // The new account holds what the `user` role holds: a grant like any other ("grant ⊆ own").
        const own = await this.access.permissionsOfActor(actor, manager);
        const granted = await this.access.findEffectiveAccess(created.id, manager);
        assertMayGrant(
          { id: actor.id, kind: actor.kind, permissions: own },
          { type: 'user', id: created.id },
          granted?.permissions ?? [],
          'user.create',
        );
        return created;
      }),
    );
    await this.audit.recordChange('user.create', actor, { type: 'user', id: user.id });
    return this.get(user.id);
  }

  async update(id: string, dto: UpdateUserDto, actor: PolicyActor, client: ClientInfo = {}): Promise<UserResponse> {
    // Argon2 before the transaction: it is slow and must not hold a connection.
    const passwordHash = dto.password ? await this.passwords.hash(dto.password) : undefined;
    await this.conflictsAsHttp(() =>
      this.identityChange.change({
        userId: id,
        changes: { name: dto.name, email: dto.email, mobile: dto.mobile, passwordHash },
        actor,
        auditType: 'user.update',
        revocationReason: 'admin',
        client,
        // Judged under the user's row lock, which role changes take too: a grant racing the edit is seen.
        beforeChange: (manager) => this.assertMayActOnUser(manager, actor, id, 'user.update'),
      }),
    );
    return this.get(id);
  }

  async delete(id: string, actor: PolicyActor): Promise<Record<string, never>> {
    await this.deletion.remove({
      userId: id,
      actor,
      auditType: 'user.delete',
      beforeDelete: (manager) => this.assertMayActOnUser(manager, actor, id, 'user.delete'),
      missing: () => notFound('User'),
      lastAdministrator: 'The last administrator cannot be deleted.',
    });
    return {};
  }

  /**
   * "target ⊆ own" (contract, Privilege boundaries): nobody edits or deletes an account holding a
   * permission they lack. Both sets are read in the change's transaction, after its locks, so a
   * grant made a moment ago counts.
   */
  private async assertMayActOnUser(
    manager: EntityManager,
    actor: PolicyActor,
    targetId: string,
    action: string,
  ): Promise<void> {
    const own = await this.access.permissionsOfActor(actor, manager);
    const target = await this.access.findEffectiveAccess(targetId, manager);
    if (!target) return; // the method's own lookup answers 404
    assertMayActOn(
      { id: actor.id, kind: actor.kind, permissions: own },
      { type: 'user', id: targetId },
      target.permissions,
      action,
    );
  }

  private async conflictsAsHttp<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw asConflict(error);
    }
  }
}
