import { Injectable, Logger } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { AuditLog } from '../core/audit/audit-log.service.js';
import type { ClientInfo } from '../core/sessions/session.service.js';
import { sha256Hex } from '../core/sessions/token-hash.js';
import { AppException } from '../common/app-exception.js';
import { asConflict, takenConflict } from '../common/unique-violation.js';
import { rateLimited } from '../common/rate-limited.js';
import { AppConfig } from '../config/app-config.js';
import { MailService } from '../outbox/mail.service.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { IdentityChangeService } from '../core/identity/identity-change.service.js';
import { UsersRepository } from '../core/users/users.repository.js';
import { AccountChangesRepository } from '../core/users/account-changes.repository.js';
import { Transactions } from '../database/transactions.js';

/**
 * The holder changes their email in two steps: a link (32 random bytes, only its SHA-256 stored)
 * goes to the new address and a notice to the old one; the change applies through the one identity
 * change when the link is used, so nobody can move an account to an address they cannot read.
 */
@Injectable()
export class EmailChangeService {
  private readonly logger = new Logger('EmailChange');

  constructor(
    private readonly transactions: Transactions,
    private readonly changes: AccountChangesRepository,
    private readonly users: UsersRepository,
    private readonly identityChange: IdentityChangeService,
    private readonly mail: MailService,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  async request(user: AuthUser, email: string, client: ClientInfo): Promise<Record<string, never>> {
    if (email === user.email) {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'email', message: 'email is already the address of this account' },
      ]);
    }
    if (await this.users.findIdByEmail(email)) throw takenConflict('email');
    const token = randomBytes(32).toString('base64url');
    await this.transactions.run(async (manager) => {
      // One request per user at a time (the user's lock), and one mail per cooldown: no mail bombing.
      await this.users.lockAccount(manager, user.id);
      const since = await this.changes.secondsSinceLatest(manager, user.id, 'email');
      const cooldown = this.config.otp.resendSeconds;
      if (since !== null && since < cooldown)
        throw rateLimited('Wait before asking for another email change.', cooldown - since);
      await this.changes.replacePending(manager, {
        id: randomUUID(),
        userId: user.id,
        kind: 'email',
        newValue: email,
        secretHash: sha256Hex(token),
        sessionId: user.sessionId,
        clientIp: client.ip?.slice(0, 64) ?? null,
        ttlSeconds: this.config.resetTokenTtl,
      });
    });
    await this.send(
      user.id,
      email,
      'Confirm your new email address',
      `Someone asked to make this the email address of an account. To confirm, open this link:\n\n` +
        `${this.config.http.appUrl}/confirm-email?token=${token}\n\nIf you did not ask for this, ignore this message.\n`,
    );
    // Fixed text, and never the new address, which may be an attacker's.
    await this.send(
      user.id,
      user.email,
      'A change of your email address was requested',
      `A change of the email address of your account was requested. It applies only when the link sent to the new ` +
        `address is opened. If you did not ask for it, change your password at once.\n`,
    );
    await this.audit.record({
      type: 'account.email_change_request',
      actorId: user.id,
      targetType: 'user',
      targetId: user.id,
      client,
    });
    return {};
  }

  async confirm(token: string, client: ClientInfo): Promise<Record<string, never>> {
    const secretHash = sha256Hex(token);
    const pending = await this.changes.findLiveBySecret('email', secretHash);
    if (!pending) throw invalidLink();
    try {
      await this.identityChange.change({
        userId: pending.user_id,
        // Consumed in the change's transaction, under the user's lock: a link applies once.
        beforeChange: async (manager) => {
          const row = await this.changes.lockLiveBySecret(manager, 'email', secretHash);
          if (!row || row.id !== pending.id) throw invalidLink();
          await this.changes.end(manager, row.id);
        },
        changes: { email: pending.new_value },
        auditType: 'account.email_change',
        revocationReason: 'identity_change',
        keepSessionId: pending.session_id ?? undefined,
        client,
      });
    } catch (error) {
      throw asConflict(error);
    }
    return {};
  }

  private async send(userId: string, to: string, subject: string, text: string): Promise<void> {
    try {
      await this.mail.send({ to, subject, text }, { kind: 'email_change', userId });
    } catch (error) {
      this.logger.error(`Email-change mail not sent: ${(error as Error).message}`);
    }
  }
}

function invalidLink(): AppException {
  return new AppException('CONFIRMATION_TOKEN_INVALID', 'The confirmation link is invalid, expired or already used.');
}
