import { Injectable } from '@nestjs/common';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { AppException } from '../common/app-exception.js';
import { AuditLog } from '../audit/index.js';
import { AuthzVersions, RolesRepository, UserRolesRepository } from '../rbac/index.js';
import type { ClientInfo } from '../common/client-info.js';
import { invalidToken } from '../sessions/index.js';
import { UsersRepository } from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { OneTimeCodes } from '../one-time-codes/index.js';

/**
 * The holder deletes their own account (GDPR Art. 17). In one transaction the user row goes, and
 * with it (foreign keys, ON DELETE CASCADE) its sessions, roles, authenticator app, recovery
 * codes, reset and verification tokens, pending changes and codes; email codes asked for the
 * address go too. Audit events keep the account's id and nothing else of it. The address is then
 * free for a new registration.
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
  ) {}

  async delete(user: AuthUser, client: ClientInfo): Promise<Record<string, never>> {
    await this.transactions.run(async (manager) => {
      // The admin role's row first, as every change that could leave no administrator takes it.
      await this.roles.lockRoleByName(manager, SystemRoles.Admin);
      const account = await this.users.lockAccount(manager, user.id);
      if (!account) throw invalidToken();
      if (await this.userRoles.isLastEnabledHolder(manager, user.id, SystemRoles.Admin)) {
        throw new AppException('CONFLICT', 'The last administrator cannot delete their account.');
      }
      // The codes asked for its address name no account when nobody's account asked: they go by address.
      await this.codes.deleteAddressedTo(manager, account.email);
      await this.users.deleteUser(manager, user.id);
    });
    // Every instance drops its cached caller: the access token is refused at its next use.
    await this.versions.bumpUser(user.id);
    await this.audit.record({
      type: 'account.delete',
      actorId: user.id,
      targetType: 'user',
      targetId: user.id,
      client,
    });
    return {};
  }
}
