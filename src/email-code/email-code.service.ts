import { Injectable } from '@nestjs/common';
import { AppException } from '../common/app-exception.js';
import { clientAddressKey } from '../common/client-address.js';
import { AuditLog } from '../audit/index.js';
import { AddressProofService } from '../account/index.js';
import { AccessRepository } from '../rbac/index.js';
import { oneFactor, SessionService, type IssuedSession } from '../sessions/index.js';
import { TwoFactorService, type TwoFactorChallenge } from '../second-factor/index.js';
import { OneTimeCodes, SendLimits } from '../one-time-codes/index.js';
import { SettingsService } from '../settings/index.js';
import { assertMaySignIn, isDisabled, UsersRepository } from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { MailService } from '../infra/messaging/mail.service.js';
import type { ClientInfo } from '../common/client-info.js';

/**
 * Sign-in by a code mailed to the account's address (better-auth's email OTP), behind the
 * `email_code` settings flag. `email-code` does the same work and answers the same whether or not
 * the address has an account (nothing is mailed to nobody's address, nor to a disabled account);
 * one code per address per OTP_RESEND_SECONDS and OTP_HOURLY_CAP an hour, whoever asks (past
 * them the answer is the same and nothing is sent). Codes are stored as keyed hashes, bound to
 * the address; OTP_MAX_ATTEMPTS wrong answers burn a code, and wrong answers carry over to the
 * next code for LOCKOUT_SECONDS. The code is one factor: an account with a second factor, or a privileged one,
 * gets the two-factor challenge after it.
 */
@Injectable()
export class EmailCodeService {
  constructor(
    private readonly transactions: Transactions,
    private readonly codes: OneTimeCodes,
    private readonly limits: SendLimits,
    private readonly users: UsersRepository,
    private readonly access: AccessRepository,
    private readonly settings: SettingsService,
    private readonly sessions: SessionService,
    private readonly twoFactor: TwoFactorService,
    private readonly mail: MailService,
    private readonly audit: AuditLog,
    private readonly addressProof: AddressProofService,
  ) {}

  async send(email: string, client: ClientInfo): Promise<{ expires_in: number }> {
    await this.assertEnabled();
    const address = clientAddressKey(client.ip)?.slice(0, 64) ?? null;
    let recipient: string | null = null;
    await this.transactions.run(async (manager) => {
      await this.codes.lockRecipient(manager, email);
      const account = await this.users.findSignInAccountByEmail(manager, email);
      // Mail goes only to the address's own holder: the address's limits, and no per-address cap of clients.
      if (await this.limits.refusal(manager, 'email_sign_in', email, null)) {
        // The same answer, and a stand-in queued so the work matches: the recipient is not mailed again.
        await this.mail.queue(null, { kind: 'email_code', userId: null, perRecipient: true }, manager);
        return;
      }
      // A disabled account is answered like an address of nobody's: no mail, a code that matches nothing.
      const holder = account && !isDisabled(account) ? account : null;
      const code = await this.codes.issue(manager, 'email_sign_in', {
        recipient: email,
        userId: holder?.id ?? null,
        binding: email,
        clientIp: address,
      });
      recipient = holder ? holder.email : null;
      await this.mail.queue(
        holder ? this.codeMail(holder.email, code) : null,
        // The address is the request's choice: under the outbox's per-recipient limit too, whoever asks.
        { kind: 'email_code', userId: holder?.id ?? null, perRecipient: true },
        manager,
      );
    });
    this.mail.dispatch();
    await this.audit.record({ type: 'email_code.request', client, details: { sent: recipient !== null } });
    return { expires_in: this.codes.settings('email_sign_in').ttlSeconds };
  }

  async verify(
    email: string,
    code: string,
    client: ClientInfo,
  ): Promise<IssuedSession | { challenge: TwoFactorChallenge }> {
    const methods = await this.assertEnabled();
    this.codes.assertLength('email_sign_in', code, 'code');
    const result = await this.transactions.run(async (manager) => {
      const row = await this.codes.lockLatest(manager, 'email_sign_in', { recipient: email });
      return this.codes.answer(manager, row, email, code);
    });
    if (!result.ok) {
      await this.audit.record({ type: 'email_code.failure', client, details: { reason: result.error.code } });
      throw result.error;
    }
    let account = result.row.userId ? await this.users.findSignInAccount(result.row.userId) : null;
    if (!account || account.email !== email) throw new AppException('INVALID_OTP', 'The code is wrong.');
    if (isDisabled(account)) {
      await this.audit.record({
        type: 'login.disabled',
        actorId: account.id,
        client,
        details: { method: 'email_code' },
      });
      assertMaySignIn(account);
    }
    // The right code proves the holder reads the address; its first proof ends what came before it.
    const proof = await this.addressProof.proveAddress(account.id, email, client);
    if (proof === 'mismatch') throw new AppException('INVALID_OTP', 'The code is wrong.');
    if (proof === 'first') {
      // Its factors and password may have gone: the account as it is now decides what follows.
      account = await this.users.findSignInAccount(account.id);
      if (!account) throw new AppException('INVALID_OTP', 'The code is wrong.');
    }
    // One factor: an account with a second factor (an app, or the privileged accounts' SMS) gets its challenge.
    const secondFactors = await this.twoFactor.methodsFor(account);
    if (secondFactors.length > 0) {
      const challenge = await this.twoFactor.challenge(account, client, secondFactors, 'otp');
      await this.audit.record({
        type: '2fa.challenge',
        actorId: account.id,
        client,
        details: { login: 'email_code', methods: secondFactors },
      });
      return { challenge };
    }
    if (await this.access.isPrivilegedAccount(account.id)) {
      throw new AppException(
        'LOGIN_METHOD_DISABLED',
        methods.emailPassword
          ? 'Administrators must sign in with their password and a second factor.'
          : 'Administrators must sign in with a second factor.',
      );
    }
    return this.sessions.startWithResponse(account, client, oneFactor('otp'), {
      event: { type: 'email_code.success', actorId: account.id },
    });
  }

  private async assertEnabled() {
    const methods = await this.settings.getLoginMethods();
    if (!methods.emailCode) throw new AppException('LOGIN_METHOD_DISABLED', 'Sign-in with an email code is disabled.');
    return methods;
  }

  /** Fixed text and the code only: the code is the mail's only run of digits. */
  private codeMail(to: string, code: string) {
    return {
      to,
      subject: 'Your sign-in code',
      text:
        `Your sign-in code is ${code}. It expires in a few minutes. Never share it with anyone.\n\n` +
        `If you did not ask for it, ignore this mail; nobody can sign in without the code.\n`,
    };
  }
}
