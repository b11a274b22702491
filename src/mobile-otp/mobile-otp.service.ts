import { Injectable } from '@nestjs/common';
import { SessionService, type IssuedSession, oneFactor } from '../sessions/index.js';
import { AuditLog } from '../audit/index.js';
import { AppException } from '../common/app-exception.js';
import { clientAddressKey } from '../common/client-address.js';
import { SettingsService } from '../settings/index.js';
import { UsersRepository, isDisabled } from '../identity/index.js';
import { TwoFactorService, type TwoFactorChallenge } from '../second-factor/index.js';
import { OneTimeCodes, SendLimits } from '../one-time-codes/index.js';
import { SmsService } from '../infra/messaging/sms.service.js';
import { Transactions } from '../infra/database/transactions.js';
import type { ClientInfo } from '../common/client-info.js';

/**
 * Mobile + SMS code sign-in. `send-otp` answers the same whether or not the mobile has an account
 * (an SMS only goes to an account's mobile); cooldowns and hourly caps per mobile and per client
 * address hold against SMS pumping; wrong attempts carry over to the next code for LOCKOUT_SECONDS.
 */
@Injectable()
export class MobileOtpService {
  constructor(
    private readonly transactions: Transactions,
    private readonly codes: OneTimeCodes,
    private readonly limits: SendLimits,
    private readonly sms: SmsService,
    private readonly settings: SettingsService,
    private readonly sessions: SessionService,
    private readonly audit: AuditLog,
    private readonly users: UsersRepository,
    private readonly twoFactor: TwoFactorService,
  ) {}

  async send(mobile: string, client: ClientInfo): Promise<{ expires_in: number }> {
    await this.assertEnabled();
    // The per-address cap counts clients (an IPv6 /64, `::ffff:1.2.3.4` as 1.2.3.4): client_ip holds that key.
    const address = clientAddressKey(client.ip)?.slice(0, 64);
    await this.transactions.run(async (manager) => {
      // One sender per mobile at a time (second-factor codes too), so the cooldown and caps cannot be raced.
      await this.codes.lockRecipient(manager, mobile);
      // Mobile-change and re-authentication codes to this number, or from this address, count too.
      await this.limits.assertMaySend(manager, 'sms_sign_in', mobile, address ?? null);
      // A disabled account is answered like a number of nobody's: the same work, and no SMS.
      const account = (await this.users.findAccountsByMobile(manager, mobile)).find((found) => !isDisabled(found));
      // Wrong answers of the number's last code carry over: asking for codes does not buy guesses.
      const code = await this.codes.issue(manager, 'sms_sign_in', {
        recipient: mobile,
        userId: account?.id ?? null,
        binding: mobile,
        clientIp: address ?? null,
      });
      // Queued, never sent here: the answer does not wait for the gateway. A mobile of nobody gets
      // a stand-in that the sender drops, so both cost the request the same work. The sender
      // records `otp.sent` once the gateway has taken the message.
      await this.sms.send(
        { to: account ? mobile : null, text: this.codes.smsText(code), kind: 'otp.login', userId: account?.id ?? null },
        manager,
      );
    });
    this.sms.dispatch();
    return { expires_in: this.codes.settings('sms_sign_in').ttlSeconds };
  }

  /** A session, or, for an account that holds a second factor, the challenge for it. */
  async verify(
    mobile: string,
    code: string,
    client: ClientInfo,
  ): Promise<IssuedSession | { challenge: TwoFactorChallenge }> {
    await this.assertEnabled();
    this.codes.assertLength('sms_sign_in', code, 'otp');
    const result = await this.transactions.run(async (manager) => {
      const row = await this.codes.lockLatest(manager, 'sms_sign_in', { recipient: mobile });
      return this.codes.answer(manager, row, mobile, code);
    });
    if (!result.ok) {
      await this.audit.record({ type: 'otp.failure', client, details: { reason: result.error.code } });
      throw result.error;
    }
    const [account] = await this.users.findAccountsByMobile(this.transactions.manager, mobile);
    if (!account || account.id !== result.row.userId) throw new AppException('INVALID_OTP', 'The code is wrong.');
    // The code is one factor: an account with a second factor gets tokens only after it, and a
    // privileged account without one must use its password too (the one factor-counting rule).
    const requirement = await this.twoFactor.requirementFor(account, 'sms');
    if (requirement.kind === 'refused') {
      throw new AppException('LOGIN_METHOD_DISABLED', 'Administrators must sign in with their password and a code.');
    }
    if (requirement.kind === 'challenge') {
      const challenge = await this.twoFactor.challenge(account, client, requirement.methods, 'sms');
      await this.audit.record({
        type: '2fa.challenge',
        actorId: account.id,
        client,
        details: { login: 'otp', methods: requirement.methods },
      });
      return { challenge };
    }
    return this.sessions.startWithResponse(account, client, oneFactor('sms'), {
      event: { type: 'otp.success', actorId: account.id },
    });
  }

  private async assertEnabled() {
    const methods = await this.settings.getLoginMethods();
    if (!methods.mobileOtp) throw new AppException('LOGIN_METHOD_DISABLED', 'Sign-in with a mobile code is disabled.');
    return methods;
  }
}
