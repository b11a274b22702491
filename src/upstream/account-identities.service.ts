import type { AuthUser } from '@auth-rbac/nest-guard';
import { Injectable } from '@nestjs/common';
import { SignInMethodNotices } from '../account/index.js';
import { AuditLog } from '../audit/index.js';
import { AppException } from '../common/app-exception.js';
import type { ClientInfo } from '../common/client-info.js';
import { UpstreamIdentitiesRepository, UsersRepository } from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { PasskeysService } from '../second-factor/index.js';
import { SettingsService } from '../settings/index.js';
import { UpstreamSignInService } from './upstream-sign-in.service.js';

/** An identity as the holder's list shows it (contract: `{id, provider, email, linked_at, last_used_at}`). */
export interface IdentityResponse {
  id: string;
  provider: string;
  email: string | null;
  linked_at: Date;
  last_used_at: Date | null;
}

/**
 * The holder's upstream identities (`/api/account/identities`): the list, a link started from the
 * account (the flow's answer links the identity the person signs in with at the upstream), and
 * an unlink, which never removes the last way to sign in.
 */
@Injectable()
export class AccountIdentitiesService {
  constructor(
    private readonly identities: UpstreamIdentitiesRepository,
    private readonly users: UsersRepository,
    private readonly passkeys: PasskeysService,
    private readonly settings: SettingsService,
    private readonly upstream: UpstreamSignInService,
    private readonly transactions: Transactions,
    private readonly notices: SignInMethodNotices,
    private readonly audit: AuditLog,
  ) {}

  async list(user: AuthUser): Promise<{ items: IdentityResponse[]; total: number }> {
    const rows = await this.identities.listOfUser(user.id);
    const items = rows.map((row) => ({
      id: row.id,
      provider: row.providerSlug,
      email: row.email,
      linked_at: row.linkedAt,
      last_used_at: row.lastUsedAt,
    }));
    return { items, total: items.length };
  }

  /** The upstream's URL to open in this browser, and the binding its cookie keeps. */
  async startLink(
    user: AuthUser,
    slug: string,
    binding: string | undefined,
  ): Promise<{ response: { authorization_url: string }; binding: string }> {
    const started = await this.upstream.startLink(user.id, slug, binding);
    if (!started) throw new AppException('NOT_FOUND', 'Identity provider not found.');
    return { response: { authorization_url: started.url }, binding: started.binding };
  }

  async unlink(user: AuthUser, identityId: string, client: ClientInfo): Promise<Record<string, never>> {
    const [hasPasskey, methods] = await Promise.all([
      this.passkeys.hasPasskey(user.id),
      this.settings.getLoginMethods(),
    ]);
    const removed = await this.transactions.run(async (manager) => {
      // Under the account's lock: two parallel unlinks cannot each leave the other as the last way.
      const account = await this.users.lockAccount(manager, user.id);
      if (!account) return null;
      const all = await this.identities.listOfUser(user.id, manager);
      const target = all.find((row) => row.id === identityId);
      if (!target) return null;
      const otherIdentities = all.filter((row) => row.id !== identityId && row.providerEnabled).length;
      const password = await this.users.hasPasswordSet(user.id, manager);
      const emailVerified = await this.users.isEmailVerified(user.id, manager);
      const ways =
        otherIdentities +
        (password && methods.emailPassword ? 1 : 0) +
        (hasPasskey ? 1 : 0) +
        (account.mobile !== null && methods.mobileOtp ? 1 : 0) +
        (emailVerified && methods.emailCode ? 1 : 0);
      if (ways === 0) {
        throw new AppException(
          'CONFLICT',
          'This is the last way to sign in to the account: set a password or add another first.',
        );
      }
      return this.identities.unlink(manager, user.id, identityId);
    });
    if (!removed) throw new AppException('NOT_FOUND', 'Identity not found.');
    await this.audit.recordOnOwnAccount('upstream.unlink', user.id, client, { identity_id: removed.id });
    await this.notices.tell(user.id, 'identity-unlinked');
    return {};
  }
}
