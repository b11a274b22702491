import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { LoginLockout, lockoutSubject } from '../lockout/index.js';
import { AuditLog } from '../audit/index.js';
import { MailService } from '../infra/messaging/mail.service.js';
import type { ClientInfo } from '../common/client-info.js';
import { IdentityChangeService } from '../account/index.js';
import { UsersRepository, PasswordHasher } from '../identity/index.js';
import { PasswordResetTokensRepository } from '../sessions/index.js';
import { sha256Hex } from '../common/token-hash.js';
import { Transactions } from '../infra/database/transactions.js';

export const FORGOT_PASSWORD_RESPONSE = {
  message: 'If an account exists for that email, a password reset link has been sent to it.',
};

/**
 * Password reset by email: a single-use token of 32 random bytes whose SHA-256 alone is stored.
 * A new request voids older tokens; a reset revokes every session and signs nobody in.
 */
@Injectable()
export class PasswordResetService {
  constructor(
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly passwords: PasswordHasher,
    private readonly mail: MailService,
    private readonly config: AppConfig,
    private readonly lockout: LoginLockout,
    private readonly audit: AuditLog,
    private readonly resetTokens: PasswordResetTokensRepository,
    private readonly identityChange: IdentityChangeService,
  ) {}

  async requestReset(email: string, client: ClientInfo = {}): Promise<typeof FORGOT_PASSWORD_RESPONSE> {
    const user = await this.users.findIdByEmail(email);
    await this.audit.record({
      type: 'password_reset.request',
      actorId: user?.id ?? null,
      client,
      details: { known_account: Boolean(user) },
    });
    const token = randomBytes(32).toString('base64url');
    // Nearly the same work whether or not the email has an account: one transaction that queues
    // one message (for nobody's email a stand-in that is never sent; an account adds its token's
    // writes). Queued, not sent: a slow mail server shows in no answer.
    await this.transactions.run(async (manager) => {
      // Parallel requests for one address take turns, so the resend interval cannot be raced.
      await this.resetTokens.lockRequests(manager, user?.id ?? sha256Hex(email));
      const issued = user ? await this.issueToken(manager, user.id, token) : false;
      await this.mail.queue(
        issued ? this.resetMail(user!.email, token) : null,
        // The address is the request's choice: under the outbox's per-recipient limit, whoever asks.
        { kind: 'password_reset', userId: user?.id ?? null, perRecipient: true },
        manager,
      );
    });
    this.mail.dispatch();
    return FORGOT_PASSWORD_RESPONSE;
  }

  /** An identity change like any other: sessions revoked, other reset tokens void, the address told. */
  async reset(token: string, newPassword: string, client: ClientInfo = {}): Promise<Record<string, never>> {
    const tokenHash = sha256Hex(token);
    // A cheap look first, so invalid tokens cost no Argon2 work.
    const userId = await this.resetTokens.findUserOfUsable(tokenHash);
    if (!userId) throw invalidResetToken();
    const passwordHash = await this.passwords.hash(newPassword);
    try {
      await this.identityChange.change({
        userId,
        // Consumed under the user's lock: of two concurrent resets with one token, one wins.
        beforeChange: async (manager) => {
          if ((await this.resetTokens.consume(manager, tokenHash)) !== userId) throw invalidResetToken();
        },
        changes: { passwordHash },
        auditType: 'password_reset.complete',
        revocationReason: 'password_reset',
        client,
      });
    } catch (error) {
      // The account was deleted since the look, and its tokens with it.
      throw error instanceof AppException && error.code === 'NOT_FOUND' ? invalidResetToken() : error;
    }
    // Whoever proved control of the mailbox may sign in with the new password at once.
    await this.lockout.succeeded(lockoutSubject(userId, {}));
    return {};
  }

  /**
   * A new token, voiding older ones, unless one was issued within OTP_RESEND_SECONDS: one mail
   * per address per interval, against mail bombing (the answer stays the same).
   */
  private async issueToken(manager: EntityManager, userId: string, token: string): Promise<boolean> {
    // The user's lock first, as every identity change takes it: no lock-order deadlock with a reset.
    await this.users.lockAccount(manager, userId);
    if (await this.resetTokens.issuedWithin(manager, userId, this.config.otp.resendSeconds)) return false;
    await this.resetTokens.voidAllOfUser(manager, userId);
    await this.resetTokens.insert(manager, {
      userId,
      tokenHash: sha256Hex(token),
      expiresAt: new Date(Date.now() + this.config.resetTokenTtl * 1000),
    });
    return true;
  }

  /** Fixed text and the link only: never text the user chose (a name could carry a phishing line). */
  private resetMail(to: string, token: string) {
    const link = `${this.config.http.appUrl}/reset-password?token=${token}`;
    const minutes = Math.round(this.config.resetTokenTtl / 60);
    return {
      to,
      subject: 'Reset your password',
      text:
        `Hello,\n\nSomeone asked to reset the password of your account. If it was you, open this link ` +
        `within ${minutes} minutes:\n\n${link}\n\nIf it was not you, ignore this mail; your password stays as it is.\n`,
    };
  }
}

function invalidResetToken(): AppException {
  return new AppException('RESET_TOKEN_INVALID', 'The reset link is invalid, expired or already used.');
}
