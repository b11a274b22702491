import { Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { AuditLog } from '../audit/index.js';
import { AuthzVersions } from '../rbac/index.js';
import type { ClientInfo } from '../common/client-info.js';
import { sha256Hex } from '../common/token-hash.js';
import { UsersRepository } from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { MailService } from '../infra/messaging/mail.service.js';
import { EmailVerificationTokensRepository } from './email-verification-tokens.repository.js';

/** How long a verification link works: a day, long enough to find the mail, short enough to matter. */
export const EMAIL_VERIFICATION_TTL_SECONDS = 24 * 3600;

export const RESEND_VERIFICATION_RESPONSE = {
  message: 'If an account with an unverified address exists for that email, a verification link has been sent to it.',
};

/**
 * Proof that an account's holder reads its address: a link of 32 random bytes whose SHA-256 alone
 * is stored, bound to the address it went to, single use, `EMAIL_VERIFICATION_TTL_SECONDS`. One
 * mail per address per OTP_RESEND_SECONDS and OTP_HOURLY_CAP an hour, whoever asks, with the same
 * answer for every address.
 */
@Injectable()
export class EmailVerificationService {
  constructor(
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly tokens: EmailVerificationTokensRepository,
    private readonly mail: MailService,
    private readonly config: AppConfig,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
  ) {}

  /** At registration, in its transaction (call `mail.dispatch()` after the commit). */
  async issueInTransaction(manager: EntityManager, user: { id: string; email: string }): Promise<void> {
    const token = randomBytes(32).toString('base64url');
    await this.insertToken(manager, user, token);
    await this.mail.queue(
      this.verificationMail(user.email, token),
      { kind: 'email_verification', userId: user.id },
      manager,
    );
  }

  dispatch(): void {
    this.mail.dispatch();
  }

  async resend(email: string, client: ClientInfo): Promise<typeof RESEND_VERIFICATION_RESPONSE> {
    const user = await this.users.findIdByEmail(email);
    const token = randomBytes(32).toString('base64url');
    // The same work whatever the address: one transaction of the same statements, which queues one
    // message (for an unknown or already verified address a stand-in that is never sent), then one
    // audit row. An unknown address runs the link's statement on an id of no account: it writes nothing.
    let sent = false;
    await this.transactions.run(async (manager) => {
      await this.tokens.lockRequests(manager, user?.id ?? sha256Hex(email));
      sent = await this.tokens.reissueIfAllowed(
        manager,
        {
          userId: user?.id ?? randomUUID(),
          email: user?.email ?? email,
          tokenHash: sha256Hex(token),
          expiresAt: new Date(Date.now() + EMAIL_VERIFICATION_TTL_SECONDS * 1000),
        },
        // One mail per OTP_RESEND_SECONDS and OTP_HOURLY_CAP an hour to the address, whoever asks.
        { seconds: this.config.otp.resendSeconds, hourlyCap: this.config.otp.hourlyCap },
      );
      await this.mail.queue(
        sent ? this.verificationMail(user!.email, token) : null,
        // The address is the request's choice: under the outbox's per-recipient limit too, whoever asks.
        { kind: 'email_verification', userId: user?.id ?? null, perRecipient: true },
        manager,
      );
    });
    this.mail.dispatch();
    await this.audit.record(
      sent
        ? { type: 'email.verification_sent', actorId: user!.id, client }
        : { type: 'email.verification_request', client, details: { sent: false } },
    );
    return RESEND_VERIFICATION_RESPONSE;
  }

  async verify(token: string, client: ClientInfo): Promise<Record<string, never>> {
    const userId = await this.transactions.run(async (manager) => {
      const consumed = await this.tokens.consume(manager, sha256Hex(token));
      // A link mailed to an address the account no longer has verifies nothing.
      if (!consumed) return null;
      const outcome = await this.users.markEmailVerified(manager, consumed.userId, consumed.email);
      if (outcome === 'mismatch') return null;
      return consumed.userId;
    });
    if (!userId) {
      throw new AppException('CONFIRMATION_TOKEN_INVALID', 'The link is invalid, expired or already used.');
    }
    await this.versions.bumpUser(userId);
    await this.audit.recordOnOwnAccount('email.verify', userId, client);
    return {};
  }

  private insertToken(manager: EntityManager, user: { id: string; email: string }, token: string): Promise<void> {
    return this.tokens.insert(manager, {
      userId: user.id,
      email: user.email,
      tokenHash: sha256Hex(token),
      expiresAt: new Date(Date.now() + EMAIL_VERIFICATION_TTL_SECONDS * 1000),
    });
  }

  /** Fixed text and the link only. */
  private verificationMail(to: string, token: string) {
    const link = `${this.config.http.appUrl}/verify-email?token=${token}`;
    return {
      to,
      subject: 'Verify your email address',
      text:
        `Hello,\n\nAn account was created with this email address. To confirm that the address is yours, ` +
        `open this link within 24 hours:\n\n${link}\n\nIf you did not create an account, ignore this mail.\n`,
    };
  }
}
