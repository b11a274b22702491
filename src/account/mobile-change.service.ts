import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuditLog } from '../audit/index.js';
import type { ClientInfo } from '../common/client-info.js';
import { AppException } from '../common/app-exception.js';
import { asConflict } from '../common/unique-violation.js';
import { clientAddressKey } from '../common/client-address.js';
import { OneTimeCodes, SendLimits } from '../one-time-codes/index.js';
import { SmsService } from '../infra/messaging/sms.service.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { auditChangeRequest } from './change-request-audit.js';
import { IdentityChangeService } from './identity-change.service.js';
import { UsersRepository, AccountChangesRepository } from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { SessionsRepository } from '../sessions/index.js';

/**
 * The holder changes their mobile: an SMS code goes to the new number (under send-otp's cooldown
 * per number and hourly caps per number and per client address, against SMS pumping), and the
 * change applies through the one identity change when that code comes back. The code is a
 * `mobile_change` one-time code bound to the request; its last wrong answer (OTP_MAX_ATTEMPTS)
 * ends the request with it.
 */
@Injectable()
export class MobileChangeService {
  constructor(
    private readonly transactions: Transactions,
    private readonly changes: AccountChangesRepository,
    private readonly users: UsersRepository,
    private readonly identityChange: IdentityChangeService,
    private readonly codes: OneTimeCodes,
    private readonly limits: SendLimits,
    private readonly sms: SmsService,
    private readonly audit: AuditLog,
    private readonly sessions: SessionsRepository,
  ) {}

  async request(user: AuthUser, mobile: string, client: ClientInfo): Promise<{ expires_in: number }> {
    const profile = await this.users.findProfile(user.id);
    if (profile?.mobile === mobile) {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'mobile', message: 'mobile is already the number of this account' },
      ]);
    }
    // A taken number gets the same answer, the same limits and the same work, but its SMS is a
    // stand-in that is never sent (Changes name no one else's account); the conflict is audited.
    const taken = (await this.users.findIdByMobile(mobile)) !== null;
    const id = randomUUID();
    // The per-address cap counts clients as send-otp does (an IPv6 /64, `::ffff:1.2.3.4` as 1.2.3.4).
    const clientIp = clientAddressKey(client.ip)?.slice(0, 64) ?? null;
    await this.transactions.run(async (manager) => {
      // The lock send-otp takes: one sender per number at a time, so the cooldown and caps cannot be raced.
      await this.codes.lockRecipient(manager, mobile);
      // send-otp's own rule, counting every flow: one cooldown per number, one hourly budget per number and per address.
      await this.limits.assertMaySend(manager, 'mobile_change', mobile, clientIp);
      const { ttlSeconds } = this.codes.settings('mobile_change');
      await this.changes.replacePending(manager, {
        id,
        userId: user.id,
        kind: 'mobile',
        newValue: mobile,
        secretHash: null,
        sessionId: user.sessionId,
        clientIp,
        ttlSeconds,
      });
      const code = await this.codes.issue(manager, 'mobile_change', {
        recipient: mobile,
        userId: user.id,
        binding: id,
        reference: id,
        clientIp,
      });
      // Queued with the request (the outbox): the answer never waits for the SMS gateway.
      await this.sms.send(
        {
          to: taken ? null : mobile,
          text: this.codes.smsText(code),
          kind: 'mobile_change',
          userId: user.id,
          perRecipient: true,
        },
        manager,
      );
    });
    this.sms.dispatch();
    await auditChangeRequest(this.audit, 'mobile', user.id, client, taken);
    return { expires_in: this.codes.settings('mobile_change').ttlSeconds };
  }

  async confirm(user: AuthUser, code: string, client: ClientInfo): Promise<Record<string, never>> {
    const outcome = await this.transactions.run(async (manager) => {
      const pending = await this.changes.lockLiveOfUser(manager, user.id, 'mobile');
      if (!pending)
        return { error: new AppException('OTP_EXPIRED', 'No code is pending, or it has expired: request a new one.') };
      // The request dies with the session that asked for it (logout, revocation, identity change, reset).
      if (!(await this.sessions.isLive(manager, pending.sessionId))) {
        await this.changes.end(manager, pending.id);
        return { error: invalidCode() };
      }
      const row = await this.codes.lockLatest(manager, 'mobile_change', { reference: pending.id });
      const check = await this.codes.answer(manager, row, pending.id, code);
      if (check.ok) return { pending };
      // A spent code (its last wrong answer, say) ends the request: the next answer finds none pending.
      if (check.spent) await this.changes.end(manager, pending.id);
      return { error: check.error };
    });
    if ('error' in outcome) throw outcome.error;
    const pending = outcome.pending!;
    try {
      await this.identityChange.change({
        userId: user.id,
        beforeChange: async (manager) => {
          const row = await this.changes.lockLiveOfUser(manager, user.id, 'mobile');
          if (!row || row.id !== pending.id)
            throw new AppException('OTP_EXPIRED', 'The code was already used or replaced.');
          if (!(await this.sessions.isLive(manager, row.sessionId))) throw invalidCode();
          await this.changes.end(manager, row.id);
        },
        changes: { mobile: pending.newValue },
        auditType: 'account.mobile_change',
        revocationReason: 'identity_change',
        keepSessionId: user.sessionId,
        client,
      });
    } catch (error) {
      throw asConflict(error);
    }
    return {};
  }
}

function invalidCode(): AppException {
  return new AppException(
    'CONFIRMATION_TOKEN_INVALID',
    'The session that asked for this change has ended: the code is void. Ask again.',
  );
}
