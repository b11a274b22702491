import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SessionService, type ClientInfo, type IssuedSession, type PublicUser } from '../auth/session.service.js';
import { TokenService, TWO_FACTOR_TOKEN_TTL } from '../auth/token.service.js';
import { AuditLog } from '../audit/audit-log.service.js';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { SettingsService } from '../settings/settings.service.js';
import { UsersRepository } from '../users/users.repository.js';
import { checkOtp } from './otp-check.js';
import { OtpCode } from './otp-code.entity.js';
import { OtpCodes } from './otp-codes.js';
import { assertCodeLength } from './otp.dto.js';
import { maskMobile } from './mask-mobile.js';
import { SmsSender } from './sms/sms-sender.js';
import { RecoveryCodesService } from '../account/recovery-codes.service.js';
import { TotpService } from '../account/totp.service.js';
import { checkChallengeAnswer } from './second-factor-check.js';

export type SecondFactorMethod = 'totp' | 'sms' | 'recovery';

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
  private readonly logger = new Logger('TwoFactor');

  constructor(
    private readonly dataSource: DataSource,
    private readonly codes: OtpCodes,
    private readonly sms: SmsSender,
    private readonly settings: SettingsService,
    private readonly tokens: TokenService,
    private readonly sessions: SessionService,
    private readonly users: UsersRepository,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
    private readonly totp: TotpService,
    private readonly recoveryCodes: RecoveryCodesService,
  ) {}

  /**
   * What the second factor of this password login accepts, in order of preference; empty when
   * none applies. An account with an authenticator app always gets the second factor, with SMS as
   * a fallback when it has a mobile and both login methods are on.
   */
  async methodsFor(user: { id: string; mobile: string | null }): Promise<SecondFactorMethod[]> {
    if (await this.totp.isEnrolled(user.id)) {
      const methods = await this.settings.getLoginMethods();
      const sms = user.mobile !== null && methods.emailPassword && methods.mobileOtp;
      return sms ? ['totp', 'sms', 'recovery'] : ['totp', 'recovery'];
    }
    return (await this.applies(user)) ? ['sms'] : [];
  }

  async applies(user: { id: string; mobile: string | null }): Promise<boolean> {
    if (!user.mobile) return false;
    const methods = await this.settings.getLoginMethods();
    if (!methods.emailPassword || !methods.mobileOtp) return false;
    return this.users.isPrivilegedAccount(user.id);
  }

  async challenge(user: PublicUser, client: ClientInfo, methods: SecondFactorMethod[] = ['sms']): Promise<TwoFactorChallenge> {
    // Without SMS the row still carries the challenge's attempts and single use; its code is never sent.
    const mobile = methods.includes('sms') ? user.mobile : null;
    const jti = randomUUID();
    const code = this.codes.generate();
    const tempToken = await this.tokens.signTwoFactor({ userId: user.id, email: user.email }, jti);
    const ttl = Math.min(this.config.otp.ttl, TWO_FACTOR_TOKEN_TTL);
    const row = await this.dataSource.getRepository(OtpCode).save({
      purpose: '2fa',
      mobile: mobile ?? '',
      userId: user.id,
      tempTokenJti: jti,
      codeHash: this.codes.hash('2fa', jti, code),
      clientIp: client.ip?.slice(0, 64) ?? null,
      expiresAt: new Date(Date.now() + ttl * 1000),
    });
    const offered = methods.includes('totp') ? { methods } : {};
    if (mobile === null) return { requires_otp: true, temp_token: tempToken, mobile_masked: null, ...offered };
    try {
      await this.sms.send(mobile, this.codes.message(code));
    } catch {
      if (methods.includes('totp')) {
        // The app still works: the SMS fallback is dropped from this challenge, not the sign-in.
        this.logger.error(`Two-factor SMS for user ${user.id} not delivered; offering the app only`);
        return { requires_otp: true, temp_token: tempToken, mobile_masked: null, methods: methods.filter((m) => m !== 'sms') };
      }
      await this.dataSource.getRepository(OtpCode).update({ id: row.id }, { endedAt: new Date(), endReason: 'undelivered' });
      this.logger.error(`Two-factor SMS for user ${user.id} not delivered`);
      throw new AppException('SERVICE_UNAVAILABLE', 'The code could not be sent. Try again shortly.');
    }
    return { requires_otp: true, temp_token: tempToken, mobile_masked: maskMobile(mobile), ...offered };
  }

  async verify(tempToken: string, code: string, client: ClientInfo, requested?: SecondFactorMethod): Promise<IssuedSession> {
    const claims = await this.tokens.verifyTwoFactor(tempToken);
    const method = requested ?? ((await this.totp.isEnrolled(claims.sub)) ? 'totp' : 'sms');
    if (method !== 'recovery') assertDigits(code, method === 'sms' ? this.config.otp.length : 6);
    // The row lock makes parallel attempts with one temp token take turns: at most three are judged.
    const result = await this.dataSource.transaction(async (manager) => {
      const row = await manager
        .getRepository(OtpCode)
        .createQueryBuilder('otp')
        .setLock('pessimistic_write')
        .where(`otp.temp_token_jti = :jti AND otp.purpose = '2fa'`, { jti: claims.jti })
        .getOne();
      if (method === 'sms') return checkOtp(manager, this.codes, row, claims.jti, code);
      // Only an account that enrolled an app is offered these; a code of one step is accepted once.
      return checkChallengeAnswer(manager, row, async () =>
        method === 'totp' ? this.totp.check(manager, claims.sub, code, false) : this.recoveryCodes.use(manager, claims.sub, code),
      );
    });
    if (!result.ok) {
      await this.audit.record({ type: '2fa.failure', actorId: claims.sub, client, details: { reason: result.error.code, method } });
      throw result.error;
    }
    const user = await this.users.findProfile(claims.sub);
    if (!user || result.row.userId !== user.id) throw new AppException('UNAUTHENTICATED', 'The token is missing, invalid, expired or revoked.');
    const session = await this.sessions.startWithResponse(user, client);
    await this.audit.record({ type: '2fa.success', actorId: user.id, targetType: 'session', targetId: session.tokens.sessionId, client, details: { method } });
    if (method === 'recovery') await this.audit.record({ type: '2fa.recovery_code_used', actorId: user.id, targetType: 'user', targetId: user.id, client });
    return session;
  }
}

/** SMS and app codes are digits of a known length; anything else is malformed and costs no attempt. */
function assertDigits(code: string, length: number): void {
  if (!/^\d+$/.test(code)) {
    throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [{ field: 'code', message: 'code must be a code of digits' }]);
  }
  assertCodeLength(code, length, 'code');
}
