import { Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { AuditLog } from '../audit/index.js';
import type { ClientInfo } from '../common/client-info.js';
import { sha256Hex } from '../common/token-hash.js';
import { AppException } from '../common/app-exception.js';
import { asConflict } from '../common/unique-violation.js';
import { rateLimited } from '../common/rate-limited.js';
import { AppConfig } from '../config/app-config.js';
import { MailService } from '../infra/messaging/mail.service.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { auditChangeRequest } from './change-request-audit.js';
import { IdentityChangeService } from './identity-change.service.js';
import { UsersRepository, AccountChangesRepository } from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { SessionsRepository } from '../sessions/index.js';

/**
 * The holder changes their email in two steps: a link (32 random bytes, only its SHA-256 stored)
 * goes to the new address and a notice with a cancel link (likewise) to the old one; the change
 * applies through the one identity change when the link is used, so nobody can move an account to
 * an address they cannot read. The request belongs to the session that made it and dies with it.
 */
@Injectable()
export class EmailChangeService {
  constructor(
    private readonly transactions: Transactions,
    private readonly changes: AccountChangesRepository,
    private readonly users: UsersRepository,
    private readonly identityChange: IdentityChangeService,
    private readonly mail: MailService,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
    private readonly sessions: SessionsRepository,
  ) {}

  /**
   * The same answer, the same work and the same mails whether or not the new address is taken
   * (Changes name no one else's account): for a taken one the link is a stand-in that is never
   * sent, and the conflict is audited. The link goes under the outbox's per-recipient limit.
   */
  async request(user: AuthUser, email: string, client: ClientInfo): Promise<Record<string, never>> {
    if (email === user.email) {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'email', message: 'email is already the address of this account' },
      ]);
    }
    const taken = (await this.users.findIdByEmail(email)) !== null;
    const token = randomBytes(32).toString('base64url');
    const cancelToken = randomBytes(32).toString('base64url');
    const appUrl = this.config.http.appUrl;
    await this.transactions.run(async (manager) => {
      // One request per user at a time (the user's lock), and one request per cooldown.
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
        cancelHash: sha256Hex(cancelToken),
        sessionId: user.sessionId,
        clientIp: client.ip?.slice(0, 64) ?? null,
        ttlSeconds: this.config.resetTokenTtl,
      });
      await this.mail.queue(
        taken
          ? null
          : {
              to: email,
              subject: 'Confirm your new email address',
              text:
                `Someone asked to make this the email address of an account. To confirm, open this link:\n\n` +
                `${appUrl}/confirm-email?token=${token}\n\nIf you did not ask for this, ignore this message.\n`,
            },
        { kind: 'email_change', userId: user.id, perRecipient: true },
        manager,
      );
      // Fixed text and the cancel link, never the new address, which may be an attacker's.
      await this.mail.queue(
        {
          to: user.email,
          subject: 'A change of your email address was requested',
          text:
            `A change of the email address of your account was requested. It applies only when the link sent to ` +
            `the new address is opened. If you did not ask for it, cancel it with this link and change your ` +
            `password at once:\n\n${appUrl}/cancel-email-change?token=${cancelToken}\n`,
        },
        { kind: 'email_change', userId: user.id },
        manager,
      );
    });
    this.mail.dispatch();
    await auditChangeRequest(this.audit, 'email', user.id, client, taken);
    return {};
  }

  /**
   * The link applies the change only while the session that asked for it is live: a logout, a
   * revocation, an identity change or a reset ends the request with the session.
   */
  async confirm(token: string, client: ClientInfo): Promise<Record<string, never>> {
    const secretHash = sha256Hex(token);
    const pending = await this.changes.findLiveBySecret('email', secretHash);
    if (!pending) throw invalidLink();
    try {
      await this.identityChange.change({
        userId: pending.userId,
        // Consumed in the change's transaction, under the user's lock: a link applies once.
        beforeChange: async (manager) => {
          const row = await this.changes.lockLiveBySecret(manager, 'email', secretHash);
          if (!row || row.id !== pending.id) throw invalidLink();
          if (!(await this.sessions.isLive(manager, row.sessionId))) {
            await this.changes.end(manager, row.id);
            throw invalidLink();
          }
          await this.changes.end(manager, row.id);
        },
        changes: { email: pending.newValue },
        auditType: 'account.email_change',
        revocationReason: 'identity_change',
        keepSessionId: pending.sessionId ?? undefined,
        client,
      });
    } catch (error) {
      throw asConflict(error);
    }
    return {};
  }

  /** The old address's cancel link: ends the pending change, so the new address's link is void. */
  async cancel(token: string, client: ClientInfo): Promise<Record<string, never>> {
    const ended = await this.transactions.run((manager) => this.changes.endByCancelHash(manager, sha256Hex(token)));
    if (!ended) throw invalidLink();
    await this.audit.recordOnOwnAccount('account.email_change_cancel', ended.userId, client);
    return {};
  }
}

function invalidLink(): AppException {
  return new AppException('CONFIRMATION_TOKEN_INVALID', 'The confirmation link is invalid, expired or already used.');
}
