import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/index.js';
import { SignInMethodNotices } from './sign-in-method-notices.js';
import { SessionsRepository } from '../sessions/index.js';
import { AppException } from '../common/app-exception.js';
import { normalizeEmail } from '../common/normalize.js';
import { AuthzVersions } from '../rbac/index.js';
import { UsersRepository } from '../identity/index.js';
import { SecondFactorsRepository } from '../second-factor/index.js';
import { Transactions } from '../infra/database/transactions.js';
import type { ClientInfo } from '../common/client-info.js';
import type { CallerKind } from '@auth-rbac/nest-guard';

/**
 * An operator's help for a locked-out account, from the command line (no HTTP, no token): end
 * every session, or remove the authenticator app and recovery codes so the password signs in again.
 */
@Injectable()
export class AccountRecoveryService {
  constructor(
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly secondFactors: SecondFactorsRepository,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
    private readonly notices: SignInMethodNotices,
  ) {}

  async revokeSessions(email: string): Promise<{ userId: string; revoked: number }> {
    const user = await this.findUser(email);
    const rows = await this.sessions.revoke(this.transactions.manager, { userId: user.id }, 'admin');
    await this.versions.bumpUser(user.id);
    await this.audit.record({
      type: 'session.revoke_others',
      actorId: null,
      targetType: 'user',
      targetId: user.id,
      details: { revoked: rows.length, via: 'cli' },
    });
    return { userId: user.id, revoked: rows.length };
  }

  /** Removes the app and recovery codes and ends every session: a lost device may be a stolen one. */
  async resetSecondFactor(email: string): Promise<{ userId: string; removed: boolean; revoked: number }> {
    const user = await this.findUser(email);
    const { removed, revoked } = await this.removeApp(user.id, { actorId: null, via: 'cli' });
    return { userId: user.id, removed, revoked };
  }

  /**
   * An administrator's removal of a user's authenticator app (and its recovery codes), for a
   * person who lost the device: every session ends too. 404 when the user has no app; the caller
   * checked the privilege rules.
   */
  async removeAppAsAdmin(
    userId: string,
    actor: { id: string; kind: CallerKind },
    client: ClientInfo,
  ): Promise<Record<string, never>> {
    await this.removeApp(userId, { actorId: actor.id, actorKind: actor.kind, via: 'admin', client }, true);
    return {};
  }

  private async removeApp(
    userId: string,
    by: { actorId: string | null; actorKind?: CallerKind; via: 'cli' | 'admin'; client?: ClientInfo },
    required = false,
  ): Promise<{ removed: boolean; revoked: number }> {
    const { removed, revoked } = await this.transactions.run(async (manager) => {
      const removed = await this.secondFactors.deleteTotp(manager, userId);
      if (!removed && required) throw new AppException('NOT_FOUND', 'This user has no authenticator app.');
      const revoked = await this.sessions.revoke(manager, { userId }, 'second_factor_reset');
      return { removed, revoked: revoked.length };
    });
    await this.versions.bumpUser(userId);
    await this.audit.record({
      type: 'totp.reset',
      actorId: by.actorId,
      actorKind: by.actorKind,
      client: by.client,
      targetType: 'user',
      targetId: userId,
      details: { removed, revoked, via: by.via },
    });
    if (removed) await this.notices.tell(userId, 'app-removed');
    return { removed, revoked };
  }

  private async findUser(email: string): Promise<{ id: string }> {
    const user = await this.users.findIdByEmail(normalizeEmail(email));
    if (!user) throw new AppException('NOT_FOUND', `No account has the email ${email}.`);
    return user;
  }
}
