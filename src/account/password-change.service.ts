import { Injectable } from '@nestjs/common';
import { PasswordHasher } from '../identity/index.js';
import type { ClientInfo } from '../common/client-info.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { IdentityChangeService } from './identity-change.service.js';
import type { ChangePasswordDto } from './account.dto.js';
import { ReauthenticationService } from './reauthentication.service.js';

/**
 * The holder changes their password: the current one first, then the one identity change, which
 * ends every other session, voids reset tokens and tells the email address.
 */
@Injectable()
export class PasswordChangeService {
  constructor(
    private readonly reauthentication: ReauthenticationService,
    private readonly passwords: PasswordHasher,
    private readonly identityChange: IdentityChangeService,
  ) {}

  async change(user: AuthUser, dto: ChangePasswordDto, client: ClientInfo): Promise<Record<string, never>> {
    await this.reauthentication.assertPassword(user, dto.current_password, client);
    // Argon2 before the change's transaction: it is slow and must not hold a connection.
    const passwordHash = await this.passwords.hash(dto.password);
    await this.identityChange.change({
      userId: user.id,
      changes: { passwordHash },
      auditType: 'account.password_change',
      revocationReason: 'identity_change',
      keepSessionId: user.sessionId,
      client,
    });
    return {};
  }
}
