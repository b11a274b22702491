import { Injectable } from '@nestjs/common';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';
import type { AuthUser } from '@auth-rbac/nest-guard';
import type { EntityManager } from 'typeorm';
import { AppException } from '../common/app-exception.js';
import { AuditLog, type AuditEventType } from '../audit/index.js';
import { AuthzVersions, RolesRepository, UserRolesRepository } from '../rbac/index.js';
import type { Actor } from '../common/actor.js';
import type { ClientInfo } from '../common/client-info.js';
import { SecurityEventsRepository } from '../events/index.js';
import { SessionsRepository, invalidToken } from '../sessions/index.js';
import { UsersRepository } from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { OneTimeCodes } from '../one-time-codes/index.js';
import { accountAuditEntry } from './account-audit.js';

/** One deletion: whose account, who asks, and what the asking side checks first. */
export interface AccountDeletionRequest {
  userId: string;
  /** An administrator or a service client; absent, the holder themselves. */
  actor?: Actor;
  auditType: Extract<AuditEventType, 'account.delete' | 'user.delete'>;
  /** Runs in the deletion's transaction, after the locks, before anything goes; may refuse by throwing. */
  beforeDelete?: (manager: EntityManager) => Promise<void>;
  /** What answers an account that is gone already (a 401 to its holder, a 404 to an administrator). */
  missing: () => Error;
  /** The 409's message when it is the last enabled administrator. */
  lastAdministrator: string;
  client?: ClientInfo;
}

/**
 * The one way an account is deleted, by its holder (GDPR Art. 17) or by an administrator, so the
 * next way of deleting cannot forget a step. In one transaction the user row goes, and with it
 * (foreign keys, ON DELETE CASCADE) its sessions, roles, factors, reset and verification tokens,
 * pending changes and codes; email codes asked for the address go too; and the deletion is
 * announced on the event stream as `credential-change` (every token of the account is dead), so
 * consumers and back-channel receivers stop honouring its tokens at once. Audit events keep the
 * account's id and nothing else of it. The address is then free for a new registration.
 */
@Injectable()
export class AccountDeletionService {
  constructor(
    private readonly userRoles: UserRolesRepository,
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly roles: RolesRepository,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
    private readonly codes: OneTimeCodes,
    private readonly events: SecurityEventsRepository,
    private readonly sessions: SessionsRepository,
  ) {}

  /** `DELETE /api/account`: the holder's own account. */
  async delete(user: AuthUser, client: ClientInfo): Promise<Record<string, never>> {
    await this.remove({
      userId: user.id,
      auditType: 'account.delete',
      missing: invalidToken,
      lastAdministrator: 'The last administrator cannot delete their account.',
      client,
    });
    return {};
  }

  async remove(request: AccountDeletionRequest): Promise<void> {
    const { userId } = request;
    await this.transactions.run(async (manager) => {
      // The admin role's row first, as every change that could leave no administrator takes it.
      await this.roles.lockRoleByName(manager, SystemRoles.Admin);
      const account = await this.users.lockAccount(manager, userId);
      if (!account) throw request.missing();
      await request.beforeDelete?.(manager);
      // A disabled holder cannot administer: the admin role stays with an enabled account.
      if (await this.userRoles.isLastEnabledHolder(manager, userId, SystemRoles.Admin)) {
        throw new AppException('CONFLICT', request.lastAdministrator);
      }
      // The codes asked for its address name no account when nobody's account asked: they go by address.
      await this.codes.deleteAddressedTo(manager, account.email);
      await this.sessions.endWithAccount(manager, userId);
      await this.users.deleteUser(manager, userId);
      // Its sessions go with it: every token of the account is dead, and other services are told.
      await this.events.append(manager, [
        { type: 'credential-change', sub: userId, not_before: Math.floor(Date.now() / 1000) },
      ]);
    });
    // Every instance drops its cached caller: the access token is refused at its next use.
    await this.versions.bumpUser(userId);
    await this.audit.record(accountAuditEntry(request, userId));
  }
}
