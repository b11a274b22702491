import { Injectable } from '@nestjs/common';
import { AppException } from '../common/app-exception.js';
import { clientAddressKey } from '../common/client-address.js';
import { AppConfig } from '../config/app-config.js';
import { AuditLog } from '../audit/index.js';
import { AuthzVersions, AccessRepository } from '../rbac/index.js';
import { oneFactor, SessionService, type IssuedSession } from '../sessions/index.js';
import {
  assertCodeLength,
  attemptsExceeded,
  expired,
  MAX_OTP_ATTEMPTS,
  OtpCodes,
  TwoFactorService,
  type TwoFactorChallenge,
} from '../second-factor/index.js';
import { SettingsService } from '../settings/index.js';
import { assertMaySignIn, isDisabled, UsersRepository } from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { MailService } from '../infra/messaging/mail.service.js';
import { EmailCodesRepository, type CheckedEmailCodeRow } from './email-codes.repository.js';
import type { ClientInfo } from '../common/client-info.js';

type CheckResult = { ok: true; row: CheckedEmailCodeRow } | { ok: false; error: AppException };

/**
 * Sign-in by a code mailed to the account's address (better-auth's email OTP), behind the
 * `email_code` settings flag. `email-code` does the same work and answers the same whether or not
 * the address has an account (nothing is mailed to nobody's address, nor to a disabled account);
 * one code per address per OTP_RESEND_SECONDS and OTP_HOURLY_CAP an hour, whoever asks (past
 * them the answer is the same and nothing is sent). Codes are stored as keyed hashes, bound to
 * the address; three wrong answers burn a code, and wrong answers carry over to the next code for
 * LOCKOUT_SECONDS. The code is one factor: an account with a second factor, or a privileged one,
 * gets the two-factor challenge after it.
 */
@Injectable()
export class EmailCodeService {
  constructor(
    private readonly transactions: Transactions,
    private readonly codes: OtpCodes,
    private readonly repository: EmailCodesRepository,
    private readonly users: UsersRepository,
    private readonly access: AccessRepository,
    private readonly settings: SettingsService,
    private readonly sessions: SessionService,
    private readonly twoFactor: TwoFactorService,
    private readonly mail: MailService,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
    private readonly versions: AuthzVersions,
  ) {}

  async send(email: string, client: ClientInfo): Promise<{ expires_in: number }> {
    await this.assertEnabled();
    const code = this.codes.generate();
    const address = clientAddressKey(client.ip)?.slice(0, 64) ?? null;
    let recipient: string | null = null;
    await this.transactions.run(async (manager) => {
      await this.repository.lockAddress(manager, email);
      const account = await this.users.findSignInAccountByEmail(manager, email);
      const { sent, last } = await this.repository.sentLastHour(manager, email);
      const { resendSeconds, hourlyCap } = this.config.otp;
      const withinInterval = last !== null && new Date(last).getTime() + resendSeconds * 1000 > Date.now();
      if (withinInterval || sent >= hourlyCap) {
        // The same answer, and a stand-in queued so the work matches: the recipient is not mailed again.
        await this.mail.queue(null, { kind: 'email_code', userId: null, perRecipient: true }, manager);
        return;
      }
      // A disabled account is answered like an address of nobody's: no mail, a code that matches nothing.
      const holder = account && !isDisabled(account) ? account : null;
      const attempts = await this.repository.recentAttempts(manager, email, this.config.limits.lockoutSeconds);
      await this.repository.replaceLive(manager, email);
      await this.repository.insert(manager, {
        email,
        userId: holder?.id ?? null,
        codeHash: this.codes.hash('email', email, code),
        attempts,
        clientIp: address,
        expiresAt: new Date(Date.now() + this.config.otp.ttl * 1000),
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
    return { expires_in: this.config.otp.ttl };
  }

  async verify(
    email: string,
    code: string,
    client: ClientInfo,
  ): Promise<IssuedSession | { challenge: TwoFactorChallenge }> {
    const methods = await this.assertEnabled();
    assertCodeLength(code, this.config.otp.length, 'code');
    const result = await this.transactions.run(async (manager): Promise<CheckResult> => {
      const row = await this.repository.lockLatest(manager, email);
      return this.check(manager, row, email, code);
    });
    if (!result.ok) {
      await this.audit.record({ type: 'email_code.failure', client, details: { reason: result.error.code } });
      throw result.error;
    }
    const account = result.row.userId ? await this.users.findSignInAccount(result.row.userId) : null;
    if (!account || account.email !== email) throw new AppException('INVALID_OTP', 'The code is wrong.');
    // The right code proves the holder reads the address, as a verification link does.
    if ((await this.users.markEmailVerified(this.transactions.manager, account.id, email)) === 'verified') {
      // Every instance drops its cached caller, whose record now says verified.
      await this.versions.bumpUser(account.id);
    }
    if (isDisabled(account)) {
      await this.audit.record({
        type: 'login.disabled',
        actorId: account.id,
        client,
        details: { method: 'email_code' },
      });
      assertMaySignIn(account);
    }
    // One factor: an account with a second factor (an app, or the privileged accounts' SMS) gets its challenge.
    const secondFactors = await this.twoFactor.methodsFor(account);
    if (secondFactors.length > 0) {
      const challenge = await this.twoFactor.challenge(account, client, secondFactors, 'otp');
      await this.audit.record({
        type: '2fa.challenge',
        actorId: account.id,
        client,
        details: { method: 'email_code' },
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

  /** The rules of every stored code (core/otp/otp-check.ts), for a row of `email_codes`. */
  private async check(
    manager: Parameters<EmailCodesRepository['markUsed']>[0],
    row: CheckedEmailCodeRow | null,
    email: string,
    code: string,
  ): Promise<CheckResult> {
    if (!row) return { ok: false, error: new AppException('INVALID_OTP', 'The code is wrong.') };
    if (row.endReason === 'burned' || row.attempts >= MAX_OTP_ATTEMPTS) return { ok: false, error: attemptsExceeded() };
    if (row.endedAt) return { ok: false, error: expired('The code was already used or replaced.') };
    if (new Date(row.expiresAt).getTime() <= Date.now()) return { ok: false, error: expired('The code has expired.') };
    // A code of nobody's address was never mailed: it matches nothing, yet counts attempts like any other.
    if (row.userId !== null && this.codes.matches(row.codeHash, 'email', email, code)) {
      await this.repository.markUsed(manager, row.id);
      return { ok: true, row };
    }
    const attempts = row.attempts + 1;
    const burned = attempts >= MAX_OTP_ATTEMPTS;
    await this.repository.countWrong(manager, row.id, attempts, burned);
    return {
      ok: false,
      error: new AppException(
        'INVALID_OTP',
        burned ? 'The code is wrong, and no attempts remain: request a new one.' : 'The code is wrong.',
        [{ attempts_remaining: MAX_OTP_ATTEMPTS - attempts }],
      ),
    };
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
