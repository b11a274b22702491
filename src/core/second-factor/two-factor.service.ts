import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { SessionService, type ClientInfo, type IssuedSession, type PublicUser } from '../sessions/session.service.js';
import { TokenService, TWO_FACTOR_TOKEN_TTL } from '../sessions/token.service.js';
import { AuditLog } from '../audit/audit-log.service.js';
import { AppException } from '../../common/app-exception.js';
import { AppConfig } from '../../config/app-config.js';
import { LoginLockout, lockoutSubject } from '../lockout/login-lockout.service.js';
import { SettingsService } from '../settings/settings.service.js';
import { UsersRepository } from '../users/users.repository.js';
import { checkOtp } from '../otp/otp-check.js';
import { OtpCodes } from '../otp/otp-codes.js';
import { assertCodeLength } from '../otp/code-length.js';
import { maskMobile } from './mask-mobile.js';
import { assertMobileHourlyCap } from '../otp/otp-send-limits.js';
import {
  insertChallenge,
  lockChallenge,
  lockChallengesOfUser,
  lockMobileForSending,
  replaceLiveChallenges,
} from '../otp/otp-codes.repository.js';
import { SmsService } from '../../outbox/sms.service.js';
import { RecoveryCodesService } from './recovery-codes.service.js';
import { TotpService } from './totp.service.js';
import { checkChallengeAnswer } from './second-factor-check.js';
import { Transactions } from '../../database/transactions.js';
import {
  amrOfSecondFactor,
  requiredSecondFactor,
  type FirstFactor,
  type SecondFactorMethod,
  type SecondFactorRequirement,
} from './factor-count.js';
import { twoFactors } from '../sessions/authentication-methods.js';

export type { SecondFactorMethod };

export interface TwoFactorChallenge {
  requires_otp: true;
  temp_token: string;
  mobile_masked: string | null;
  /** Present when the account has an authenticator app; the SMS-only challenge is the specification's. */
  methods?: SecondFactorMethod[];
}

/**
 * The administrators' second factor. When both login methods are on, a correct password of a
 * privileged account (contract, Privilege boundaries) that has a mobile earns a temp token (5 minutes, single use) and an SMS
 * code bound to it; `verify-2fa` with both completes the sign-in. Three wrong codes end it.
 */
@Injectable()
export class TwoFactorService {
  constructor(
    private readonly transactions: Transactions,
    private readonly codes: OtpCodes,
    private readonly sms: SmsService,
    private readonly settings: SettingsService,
    private readonly tokens: TokenService,
    private readonly sessions: SessionService,
    private readonly users: UsersRepository,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
    private readonly lockout: LoginLockout,
    private readonly totp: TotpService,
    private readonly recoveryCodes: RecoveryCodesService,
  ) {}

  /**
   * What the second factor of this password login accepts, in order of preference; empty when
   * none applies. An account with an authenticator app always gets the second factor, with SMS as
   * a fallback when it has a mobile and both login methods are on.
   */
  async methodsFor(user: { id: string; mobile: string | null; hasTotp?: boolean }): Promise<SecondFactorMethod[]> {
    const requirement = await this.requirementFor(user, 'pwd');
    return requirement.kind === 'challenge' ? requirement.methods : [];
  }

  /** The one factor-counting rule (`requiredSecondFactor`) applied to this account as it is now. */
  async requirementFor(
    user: { id: string; mobile: string | null; hasTotp?: boolean },
    firstFactor: FirstFactor,
  ): Promise<SecondFactorRequirement> {
    const [hasTotp, loginMethods] = await Promise.all([
      user.hasTotp ?? this.totp.isEnrolled(user.id),
      this.settings.getLoginMethods(),
    ]);
    // Privilege matters only without an app, with both methods on, and for an SMS sign-in or an
    // account with a mobile (the SMS second factor): read it only then.
    const privilegeMatters =
      !hasTotp &&
      loginMethods.emailPassword &&
      loginMethods.mobileOtp &&
      (firstFactor === 'sms' || user.mobile !== null);
    const privileged = privilegeMatters ? await this.users.isPrivilegedAccount(user.id) : false;
    return requiredSecondFactor({ hasTotp, mobile: user.mobile, privileged, loginMethods }, firstFactor);
  }

  async challenge(
    user: PublicUser,
    client: ClientInfo,
    methods: SecondFactorMethod[] = ['sms'],
    firstFactor: FirstFactor = 'pwd',
  ): Promise<TwoFactorChallenge> {
    // Without SMS the row still carries the challenge's attempts and single use; its code is never sent.
    const mobile = methods.includes('sms') ? user.mobile : null;
    const jti = randomUUID();
    const code = this.codes.generate();
    const tempToken = await this.tokens.signTwoFactor({ userId: user.id, email: user.email }, jti, firstFactor);
    const ttl = Math.min(this.config.otp.ttl, TWO_FACTOR_TOKEN_TTL);
    await this.transactions.run(async (manager) => {
      // Per account, then per mobile (the lock send-otp takes too): parallel logins take turns,
      // so exactly one challenge stays live and the hourly cap cannot be raced.
      await lockChallengesOfUser(manager, user.id);
      if (mobile !== null) {
        await lockMobileForSending(manager, mobile);
        // Second-factor SMS spend the mobile's hourly budget too (429 at the password step past it).
        await assertMobileHourlyCap(manager, mobile, this.config.otp.hourlyCap);
      }
      // One live challenge per account: a new one ends the previous temp token (401 OTP_EXPIRED).
      await replaceLiveChallenges(manager, user.id);
      await insertChallenge(manager, {
        mobile: mobile ?? '',
        userId: user.id,
        tempTokenJti: jti,
        codeHash: this.codes.hash('2fa', jti, code),
        clientIp: client.ip?.slice(0, 64) ?? null,
        expiresAt: new Date(Date.now() + ttl * 1000),
      });
      if (mobile !== null)
        await this.sms.send({ to: mobile, text: this.codes.message(code), kind: '2fa', userId: user.id }, manager);
    });
    if (mobile !== null) this.sms.dispatch();
    const offered = methods.includes('totp') ? { methods } : {};
    return {
      requires_otp: true,
      temp_token: tempToken,
      mobile_masked: mobile === null ? null : maskMobile(mobile),
      ...offered,
    };
  }

  async verify(
    tempToken: string,
    code: string,
    client: ClientInfo,
    requested?: SecondFactorMethod,
  ): Promise<IssuedSession> {
    const claims = await this.tokens.verifyTwoFactor(tempToken);
    // Temp tokens from before the first factor was carried in them were all password sign-ins.
    const firstFactor: FirstFactor = claims.amr?.[0] === 'sms' ? 'sms' : 'pwd';
    const method = requested ?? ((await this.totp.isEnrolled(claims.sub)) ? 'totp' : 'sms');
    // A factor never completes itself: an SMS sign-in was not offered an SMS second step.
    if (method === 'sms' && firstFactor === 'sms') {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'method', message: 'method must be one of the methods this sign-in offered' },
      ]);
    }
    if (method !== 'recovery') assertDigits(code, method === 'sms' ? this.config.otp.length : 6);
    // Second-factor codes are guessed under the account's lockout, like passwords: no code of a
    // live challenge is judged while the account is locked.
    const subject = lockoutSubject(claims.sub, {});
    await this.lockout.assertNotLocked(subject);
    // The row lock makes parallel attempts with one temp token take turns: at most three are judged.
    const result = await this.transactions.run(async (manager) => {
      const row = await lockChallenge(manager, claims.jti);
      if (method === 'sms') return checkOtp(manager, this.codes, row, claims.jti, code);
      // Only an account that enrolled an app is offered these; a code of one step is accepted once.
      return checkChallengeAnswer(manager, row, async () =>
        method === 'totp'
          ? this.totp.check(manager, claims.sub, code, false)
          : this.recoveryCodes.use(manager, claims.sub, code),
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
        await this.audit.record({
          type: '2fa.lockout',
          actorId: claims.sub,
          targetType: 'user',
          targetId: claims.sub,
          client,
        });
      }
      throw result.error;
    }
    const user = await this.users.findProfile(claims.sub);
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
    if (method === 'recovery')
      await this.audit.record({
        type: '2fa.recovery_code_used',
        actorId: user.id,
        targetType: 'user',
        targetId: user.id,
        client,
      });
    return session;
  }
}

/** SMS and app codes are digits of a known length; anything else is malformed and costs no attempt. */
function assertDigits(code: string, length: number): void {
  if (!/^\d+$/.test(code)) {
    throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
      { field: 'code', message: 'code must be a code of digits' },
    ]);
  }
  assertCodeLength(code, length, 'code');
}
