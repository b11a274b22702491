import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  SessionService,
  type IssuedSession,
  type PublicUser,
  TokenService,
  TWO_FACTOR_TOKEN_TTL,
  twoFactors,
} from '../sessions/index.js';
import { AuditLog } from '../audit/index.js';
import { AppException } from '../common/app-exception.js';
import { LoginLockout, lockoutSubject } from '../lockout/index.js';
import { SettingsService } from '../settings/index.js';
import { UsersRepository } from '../identity/index.js';
import { assertCodeLength, OneTimeCodes } from '../one-time-codes/index.js';
import { rateLimited } from '../common/rate-limited.js';
import { maskMobile } from './mask-mobile.js';
import { SecondFactorsRepository } from './second-factors.repository.js';
import { SmsService } from '../infra/messaging/sms.service.js';
import { RecoveryCodesService } from './recovery-codes.service.js';
import { TotpService } from './totp.service.js';
import { Transactions } from '../infra/database/transactions.js';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { PasskeysService } from './passkeys.service.js';
import {
  amrOfSecondFactor,
  requiredSecondFactor,
  type FirstFactor,
  type SecondFactorMethod,
  type SecondFactorRequirement,
} from './factor-count.js';
import { AccessRepository } from '../rbac/index.js';
import type { ClientInfo } from '../common/client-info.js';

export type { SecondFactorMethod };

/** Codes a temp token may ask for by SMS (`send-2fa`), besides the one an SMS-only challenge sends. */
const SMS_PER_CHALLENGE = 3;

export interface TwoFactorChallenge {
  requires_otp: true;
  temp_token: string;
  mobile_masked: string | null;
  /** Present when the account has an authenticator app or a passkey; the SMS-only challenge is the specification's. */
  methods?: SecondFactorMethod[];
  /** With `passkey` among the methods: request options for the account's passkeys. */
  passkey_options?: PublicKeyCredentialRequestOptionsJSON;
}

/** The answer to a challenge: a code (SMS, app, recovery), or a passkey's assertion. */
export interface SecondFactorAnswer {
  code?: string;
  assertion?: AuthenticationResponseJSON;
}

/**
 * The administrators' second factor. When both login methods are on, a correct password of a
 * privileged account (contract, Privilege boundaries) that has a mobile earns a temp token (5 minutes, single use) and an SMS
 * code bound to it; `verify-2fa` with both completes the sign-in. OTP_MAX_ATTEMPTS (3) wrong codes end it.
 */
@Injectable()
export class TwoFactorService {
  constructor(
    private readonly transactions: Transactions,
    private readonly codes: OneTimeCodes,
    private readonly factors: SecondFactorsRepository,
    private readonly sms: SmsService,
    private readonly settings: SettingsService,
    private readonly tokens: TokenService,
    private readonly sessions: SessionService,
    private readonly users: UsersRepository,
    private readonly access: AccessRepository,
    private readonly audit: AuditLog,
    private readonly lockout: LoginLockout,
    private readonly totp: TotpService,
    private readonly recoveryCodes: RecoveryCodesService,
    private readonly passkeys: PasskeysService,
  ) {}

  /**
   * What the second factor of this password login accepts, in order of preference; empty when
   * none applies. An account with an authenticator app always gets the second factor, with SMS as
   * a fallback when it has a mobile and both login methods are on.
   */
  async methodsFor(user: {
    id: string;
    mobile: string | null;
    hasTotp?: boolean;
    hasPasskey?: boolean;
  }): Promise<SecondFactorMethod[]> {
    const requirement = await this.requirementFor(user, 'pwd');
    return requirement.kind === 'challenge' ? requirement.methods : [];
  }

  /** The one factor-counting rule (`requiredSecondFactor`) applied to this account as it is now. */
  async requirementFor(
    user: { id: string; mobile: string | null; hasTotp?: boolean; hasPasskey?: boolean },
    firstFactor: FirstFactor,
  ): Promise<SecondFactorRequirement> {
    const [hasTotp, hasPasskey, loginMethods] = await Promise.all([
      user.hasTotp ?? this.totp.isEnrolled(user.id),
      user.hasPasskey ?? this.passkeys.hasPasskey(user.id),
      this.settings.getLoginMethods(),
    ]);
    // Privilege matters only without an app, with both methods on, and for an SMS sign-in or an
    // account with a mobile (the SMS second factor): read it only then.
    const privilegeMatters =
      !hasTotp &&
      !hasPasskey &&
      loginMethods.emailPassword &&
      loginMethods.mobileOtp &&
      (firstFactor === 'sms' || user.mobile !== null);
    const privileged = privilegeMatters ? await this.access.isPrivilegedAccount(user.id) : false;
    return requiredSecondFactor({ hasTotp, hasPasskey, mobile: user.mobile, privileged, loginMethods }, firstFactor);
  }

  async challenge(
    user: PublicUser,
    client: ClientInfo,
    methods: SecondFactorMethod[] = ['sms'],
    // `otp`: a code mailed to the address (the email-code sign-in), the rule judging it as a password.
    firstFactor: FirstFactor | 'otp' = 'pwd',
  ): Promise<TwoFactorChallenge> {
    // An SMS only when one is wanted: a challenge that offers an app or a passkey texts nothing
    // until the client asks (sendSms); an SMS-only challenge texts at once. Without SMS the row
    // still carries the challenge's attempts and single use; its code is never sent.
    const offersSms = methods.includes('sms') && user.mobile !== null;
    const mobile = offersSms && !methods.includes('totp') && !methods.includes('passkey') ? user.mobile : null;
    const jti = randomUUID();
    const tempToken = await this.tokens.signTwoFactor({ userId: user.id, email: user.email }, jti, firstFactor);
    await this.transactions.run(async (manager) => {
      // Per account, then per mobile (the lock send-otp takes too): parallel logins take turns,
      // so exactly one challenge stays live and the hourly cap cannot be raced.
      // No per-recipient cap: the account's own mobile is not a recipient the request chose, and
      // this step is bounded by the account lockout.
      await this.factors.lockChallengesOf(manager, user.id);
      // One live challenge per account: a new one ends the previous temp token (401 OTP_EXPIRED).
      const code = await this.codes.issue(manager, 'second_factor', {
        recipient: mobile,
        userId: user.id,
        binding: jti,
        reference: jti,
        clientIp: client.ip?.slice(0, 64) ?? null,
        ttlSeconds: Math.min(this.codes.settings('second_factor').ttlSeconds, TWO_FACTOR_TOKEN_TTL),
      });
      if (mobile !== null)
        await this.sms.send({ to: mobile, text: this.codes.smsText(code), kind: '2fa', userId: user.id }, manager);
    });
    if (mobile !== null) this.sms.dispatch();
    const offered = methods.includes('totp') || methods.includes('passkey') ? { methods } : {};
    const passkeyOptions = methods.includes('passkey')
      ? {
          passkey_options: await this.passkeys.authenticationOptions('second-factor', { userId: user.id }, 'preferred'),
        }
      : {};
    return {
      requires_otp: true,
      temp_token: tempToken,
      mobile_masked: offersSms ? maskMobile(user.mobile!) : null,
      ...offered,
      ...passkeyOptions,
    };
  }

  /**
   * `POST /auth/otp/send-2fa`: texts a code for a live challenge that offers `sms`, to the
   * account's own mobile. At most SMS_PER_CHALLENGE per temp token; refused while the account is
   * locked; the new code keeps the challenge's wrong answers and its end.
   */
  async sendSms(tempToken: string): Promise<{ expires_in: number; mobile_masked: string }> {
    const claims = await this.tokens.verifyTwoFactor(tempToken);
    await this.lockout.assertNotLocked(lockoutSubject(claims.sub, {}));
    const user = await this.users.findSignInAccount(claims.sub);
    if (!user) throw new AppException('UNAUTHENTICATED', 'The token is missing, invalid, expired or revoked.');
    // A factor never completes itself: an SMS sign-in is not offered an SMS second step.
    const opened = claims.amr?.[0];
    const requirement = opened === 'sms' ? null : await this.requirementFor(user, 'pwd');
    const mobile = user.mobile;
    if (mobile === null || requirement?.kind !== 'challenge' || !requirement.methods.includes('sms')) {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'temp_token', message: 'this sign-in offers no SMS code' },
      ]);
    }
    const expiresIn = await this.transactions.run(async (manager) => {
      // The lock every challenge of the account takes: parallel requests take turns, so the count holds.
      await this.factors.lockChallengesOf(manager, user.id);
      const row = await this.codes.lockLatest(manager, 'second_factor', { reference: claims.jti });
      if (!row || row.userId !== user.id)
        throw new AppException('OTP_EXPIRED', 'The sign-in has expired: sign in again.');
      const spent = this.codes.spentRefusal(row);
      if (spent) throw spent;
      const remaining = Math.floor((new Date(row.expiresAt).getTime() - Date.now()) / 1000);
      if (row.askedSends >= SMS_PER_CHALLENGE) {
        throw rateLimited('Too many codes for this sign-in; sign in again for another.', remaining);
      }
      // The challenge's row gets the new code: its attempts and its end stay.
      const code = await this.codes.reissue(manager, row, mobile, claims.jti);
      await this.sms.send({ to: mobile, text: this.codes.smsText(code), kind: '2fa', userId: user.id }, manager);
      return remaining;
    });
    this.sms.dispatch();
    return { expires_in: expiresIn, mobile_masked: maskMobile(mobile) };
  }

  async verify(
    tempToken: string,
    answer: SecondFactorAnswer,
    client: ClientInfo,
    requested?: SecondFactorMethod,
  ): Promise<IssuedSession> {
    const claims = await this.tokens.verifyTwoFactor(tempToken);
    // Temp tokens from before the first factor was carried in them were all password sign-ins.
    const opened = claims.amr?.[0];
    const firstFactor: FirstFactor | 'otp' = opened === 'sms' || opened === 'otp' || opened === 'fed' ? opened : 'pwd';
    const method =
      requested ??
      (answer.assertion !== undefined ? 'passkey' : (await this.totp.isEnrolled(claims.sub)) ? 'totp' : 'sms');
    // A factor never completes itself: an SMS sign-in was not offered an SMS second step.
    if (method === 'sms' && firstFactor === 'sms') {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'method', message: 'method must be one of the methods this sign-in offered' },
      ]);
    }
    const code = assertAnswerShape(answer, method);
    if (method !== 'recovery' && method !== 'passkey')
      assertDigits(code, method, method === 'sms' ? this.codes.settings('second_factor').length : 6);
    // Second-factor codes are guessed under the account's lockout, like passwords: no code of a
    // live challenge is judged while the account is locked.
    const subject = lockoutSubject(claims.sub, {});
    await this.lockout.assertNotLocked(subject);
    // A passkey's assertion is judged before the challenge's row is locked (its own challenge is
    // single use and bound to this account); the row then counts it like a code.
    const passkeyAccepted =
      method === 'passkey' &&
      (await this.passkeys.verifyAssertion(
        answer.assertion!,
        'second-factor',
        { userId: claims.sub, requireUserVerification: false },
        client,
      )) !== null;
    // The row lock makes parallel attempts with one temp token take turns: at most OTP_MAX_ATTEMPTS
    // are judged. Whatever the method, the challenge's row counts the answers under the one rule.
    const result = await this.transactions.run(async (manager) => {
      const row = await this.codes.lockLatest(manager, 'second_factor', { reference: claims.jti });
      // A challenge that texted nothing has no SMS code to match: any answer is wrong.
      if (method === 'sms' && row?.recipient === null)
        return this.codes.judge(manager, row, () => Promise.resolve(false), 'sign in again');
      if (method === 'sms') return this.codes.answer(manager, row, claims.jti, code, 'sign in again');
      // Only an account that enrolled an app (or a passkey) is offered these; a code of one step is
      // accepted once. A challenge always belongs to an account: a row without one matches nothing.
      return this.codes.judge(
        manager,
        row,
        async (live) => {
          if (live.userId === null) return false;
          if (method === 'passkey') return passkeyAccepted;
          return method === 'totp'
            ? this.totp.check(manager, claims.sub, code, false)
            : this.recoveryCodes.use(manager, claims.sub, code);
        },
        'sign in again',
      );
    });
    if (!result.ok) {
      await this.audit.record({
        type: '2fa.failure',
        actorId: claims.sub,
        client,
        details: { reason: result.error.code, method },
      });
      // A wrong code is a failed login of the account, on the password's counter: new challenges
      // (each needing the password) buy no fresh guesses.
      if (result.error.code === 'INVALID_OTP' && (await this.lockout.countFailure(subject))) {
        await this.audit.recordOnOwnAccount('2fa.lockout', claims.sub, client);
      }
      throw result.error;
    }
    const user = await this.users.findSignInAccount(claims.sub);
    if (!user || result.row.userId !== user.id)
      throw new AppException('UNAUTHENTICATED', 'The token is missing, invalid, expired or revoked.');
    // The sign-in is complete: the count left by the password step starts over, in the statement
    // that writes the session.
    const session = await this.sessions.startWithResponse(
      user,
      client,
      twoFactors(firstFactor, amrOfSecondFactor(method)),
      {
        event: { type: '2fa.success', actorId: user.id, details: { method } },
        attemptsOf: subject,
      },
    );
    if (method === 'recovery') await this.audit.recordOnOwnAccount('2fa.recovery_code_used', user.id, client);
    return session;
  }
}

/** A passkey answers with an assertion and no code; every other method with a code and no assertion. */
function assertAnswerShape(answer: SecondFactorAnswer, method: SecondFactorMethod): string {
  const invalid = (field: string, message: string) =>
    new AppException('VALIDATION_FAILED', 'The request is invalid.', [{ field, message }]);
  if (method === 'passkey') {
    if (answer.assertion === undefined) throw invalid('assertion', 'assertion is required with method passkey');
    if (answer.code !== undefined) throw invalid('code', 'code must be absent with method passkey');
    return '';
  }
  if (answer.assertion !== undefined) throw invalid('assertion', 'assertion is accepted with method passkey only');
  if (answer.code === undefined) throw invalid('code', 'code is required');
  return answer.code;
}

/**
 * SMS and app codes are digits of a known length; anything else is malformed and costs no attempt.
 * A code with letters is most often a recovery code sent without its method: the message says how.
 */
function assertDigits(code: string, method: 'sms' | 'totp', length: number): void {
  if (!/^\d+$/.test(code)) {
    throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
      {
        field: 'code',
        message: `code must be a code of digits for method "${method}"; to use a recovery code, send "method": "recovery" with it`,
      },
    ]);
  }
  assertCodeLength(code, length, 'code');
}
