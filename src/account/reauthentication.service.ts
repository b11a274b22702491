import { Injectable } from '@nestjs/common';
import { AuditLog } from '../core/audit/audit-log.service.js';
import { PasswordHasher } from '../core/passwords/password-hasher.js';
import type { ClientInfo } from '../core/sessions/session.service.js';
import { AppException } from '../common/app-exception.js';
import { LoginLockout, lockoutSubject } from '../core/lockout/login-lockout.service.js';
import { UsersRepository } from '../core/users/users.repository.js';

/**
 * Proof, inside a signed-in session, that the holder is present: the current password, or a
 * check of a second factor. Each attempt counts toward the account's login lockout, so a stolen
 * access token cannot be used to guess the password (or a code) any faster than a login could.
 */
@Injectable()
export class ReauthenticationService {
  constructor(
    private readonly users: UsersRepository,
    private readonly passwords: PasswordHasher,
    private readonly lockout: LoginLockout,
    private readonly audit: AuditLog,
  ) {}

  async assertPassword(user: { id: string; email: string }, password: string, client: ClientInfo): Promise<void> {
    await this.attempt(
      user.id,
      client,
      async () => {
        const account = await this.users.findByEmailWithPassword(user.email);
        return (
          account !== null && account.id === user.id && (await this.passwords.verify(account.passwordHash, password))
        );
      },
      () => new AppException('INVALID_CREDENTIALS', 'The current password is wrong.'),
    );
  }

  /** Runs a check under the lockout; a false result counts as a failed attempt and throws. */
  async attempt(
    userId: string,
    client: ClientInfo,
    check: () => Promise<boolean>,
    refusal: () => AppException,
  ): Promise<void> {
    const subject = lockoutSubject(userId, {});
    await this.lockout.begin(subject);
    if (await check()) {
      await this.lockout.succeeded(subject);
      return;
    }
    await this.lockout.failed(subject);
    await this.audit.record({
      type: 'account.reauthentication_failure',
      actorId: userId,
      targetType: 'user',
      targetId: userId,
      client,
    });
    throw refusal();
  }
}
