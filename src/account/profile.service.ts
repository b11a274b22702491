import { Injectable } from '@nestjs/common';
import type { ClientInfo } from '../common/client-info.js';
import { invalidToken } from '../sessions/index.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { IdentityChangeService } from './identity-change.service.js';
import { UsersRepository } from '../identity/index.js';

export interface AccountResponse {
  id: string;
  name: string;
  email: string;
  mobile: string | null;
  email_verified: boolean;
  roles: readonly string[];
  permissions: readonly string[];
}

/** The signed-in person's own record, as /auth/me shows it, and its name. */
@Injectable()
export class ProfileService {
  constructor(
    private readonly users: UsersRepository,
    private readonly identityChange: IdentityChangeService,
  ) {}

  async get(user: AuthUser): Promise<AccountResponse> {
    const profile = await this.users.findCallerProfile(user.id);
    if (!profile) throw invalidToken();
    const { emailVerified, ...identity } = profile;
    return { ...identity, email_verified: emailVerified, roles: user.roles, permissions: user.permissions };
  }

  /** A name change ends nothing; it still goes through the one change operation, which audits it. */
  async rename(user: AuthUser, name: string, client: ClientInfo): Promise<AccountResponse> {
    await this.identityChange.change({
      userId: user.id,
      changes: { name },
      auditType: 'account.update',
      revocationReason: 'identity_change',
      keepSessionId: user.sessionId,
      client,
    });
    return this.get(user);
  }
}
