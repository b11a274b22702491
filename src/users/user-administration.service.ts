import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { PasswordHasher } from '../auth/password-hasher.js';
import { AuditLog } from '../audit/audit-log.service.js';
import { assertMayActOn } from '../authz/privilege-refusal.js';
import type { ClientInfo } from '../auth/session.service.js';
import { AppException } from '../common/app-exception.js';
import { AuthzVersions } from '../rbac/authz-versions.js';
import { SystemRoles } from '@auth-rbac/nest-guard';
import { notFound } from '../rbac/rbac-errors.js';
import { asConflict } from '../common/unique-violation.js';
import { pageOf, pageOffset, type Page } from '../common/pagination.dto.js';
import type { CreateUserDto, ListUsersQuery, UpdateUserDto } from './users.dto.js';
import { IdentityChangeService } from './identity-change.service.js';
import { UsersRepository, type AdminUserRow } from './users.repository.js';

export type UserResponse = AdminUserRow;

/** Users as administrators see them: never a password or hash. */
@Injectable()
export class UserAdministrationService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UsersRepository,
    private readonly passwords: PasswordHasher,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
    private readonly identityChange: IdentityChangeService,
  ) {}

  async list(query: ListUsersQuery): Promise<Page<UserResponse>> {
    const { items, total } = await this.users.findAdminPage(query.search, query.limit, pageOffset(query));
    return pageOf(query, items, total);
  }

  async get(id: string, manager?: EntityManager): Promise<UserResponse> {
    const user = await this.users.findAdminUser(id, manager);
    if (!user) throw notFound('User');
    return user;
  }

  async create(dto: CreateUserDto, actorId: string): Promise<UserResponse> {
    const passwordHash = await this.passwords.hash(dto.password);
    const user = await this.conflictsAsHttp(() =>
      this.dataSource.transaction((manager) =>
        this.users.insertWithRole(
          manager,
          { name: dto.name, email: dto.email, mobile: dto.mobile ?? null, passwordHash },
          SystemRoles.User,
        ),
      ),
    );
    await this.audit.record({ type: 'user.create', actorId, targetType: 'user', targetId: user.id });
    return this.get(user.id);
  }

  async update(id: string, dto: UpdateUserDto, actorId: string, client: ClientInfo = {}): Promise<UserResponse> {
    // Argon2 before the transaction: it is slow and must not hold a connection.
    const passwordHash = dto.password ? await this.passwords.hash(dto.password) : undefined;
    await this.conflictsAsHttp(() =>
      this.identityChange.change({
        userId: id,
        changes: { name: dto.name, email: dto.email, mobile: dto.mobile, passwordHash },
        actorId,
        auditType: 'user.update',
        revocationReason: 'admin',
        client,
        // Judged under the user's row lock, which role changes take too: a grant racing the edit is seen.
        beforeChange: (manager) => this.assertMayActOnUser(manager, actorId, id, 'user.update'),
      }),
    );
    return this.get(id);
  }

  async delete(id: string, actorId: string): Promise<Record<string, never>> {
    await this.dataSource.transaction(async (manager) => {
      await lockAdminRole(manager);
      await this.get(id, manager);
      await this.assertMayActOnUser(manager, actorId, id, 'user.delete');
      if (await isLastAdmin(manager, id)) {
        throw new AppException('CONFLICT', 'The last administrator cannot be deleted.');
      }
      await manager.query(`DELETE FROM users WHERE id = $1`, [id]);
    });
    await this.versions.bumpUser(id);
    await this.audit.record({ type: 'user.delete', actorId, targetType: 'user', targetId: id });
    return {};
  }

  /**
   * "target ⊆ own" (contract, Privilege boundaries): nobody edits or deletes an account holding a
   * permission they lack. Both sets are read in the change's transaction, after its locks, so a
   * grant made a moment ago counts.
   */
  private async assertMayActOnUser(
    manager: EntityManager,
    actorId: string,
    targetId: string,
    action: string,
  ): Promise<void> {
    const actor = await this.users.findEffectiveAccess(actorId, manager);
    const target = await this.users.findEffectiveAccess(targetId, manager);
    if (!target) return; // the method's own lookup answers 404
    assertMayActOn(
      { id: actorId, permissions: actor?.permissions ?? [] },
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

/**
 * Every change that can take the admin role away from someone locks the admin role row first,
 * so two concurrent removals cannot both see "another admin remains".
 */
export async function lockAdminRole(manager: EntityManager): Promise<string> {
  const [role] = await manager.query(`SELECT id FROM roles WHERE name = $1 FOR UPDATE`, [SystemRoles.Admin]);
  return role?.id;
}

/** The user holds admin and nobody else does. */
export async function isLastAdmin(manager: EntityManager, userId: string): Promise<boolean> {
  const [{ holders, holds }] = await manager.query(
    `SELECT count(*)::int AS holders, bool_or(ur.user_id = $2) AS holds
       FROM user_roles ur JOIN roles r ON r.id = ur.role_id WHERE r.name = $1`,
    [SystemRoles.Admin, userId],
  );
  return holds === true && holders === 1;
}
