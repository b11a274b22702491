import { Injectable } from '@nestjs/common';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { AuditLog } from '../audit/index.js';
import { PasswordHasher, UsersRepository } from '../identity/index.js';
import {
  SessionService,
  tokenPairResponse,
  type IssuedSession,
  afterReauthentication,
  userVerifyingPasskey,
  type AuthenticationMethod,
} from '../sessions/index.js';
import { AppException } from '../common/app-exception.js';
import { clientAddressKey } from '../common/client-address.js';
import { AppConfig } from '../config/app-config.js';
import { LoginLockout, lockoutSubject } from '../lockout/index.js';
import { TotpService, RecoveryCodesService, PasskeysService, passkeyRefusal } from '../second-factor/index.js';
import { OneTimeCodes, SendLimits } from '../one-time-codes/index.js';
import { SmsService } from '../infra/messaging/sms.service.js';
import { Transactions } from '../infra/database/transactions.js';
import type { ReauthenticateDto } from './account.dto.js';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { ClientInfo } from '../common/client-info.js';

/**
 * One proof of presence. A new kind of proof is one more member here, one more case in
 * `ReauthenticationService.prove`, and one more `method` in the request's DTO.
 */
export type ReauthenticationProof =
  | { kind: 'password'; password: string }
  | { kind: 'totp'; code: string }
  | { kind: 'recovery'; code: string }
  | { kind: 'sms'; code: string }
  | { kind: 'passkey'; assertion: AuthenticationResponseJSON };

/**
 * Proof, inside a signed-in session, that the holder is present (GitHub's "sudo mode"): the
 * current password, an authenticator-app or recovery code, or an SMS code to the account's own
 * mobile. Each attempt counts toward the account's login lockout, so a stolen access token
 * cannot be used to guess the password (or a code) any faster than a login could; a right proof
 * gives its attempt back without clearing earlier failures. Success re-issues the same session's
 * tokens with `auth_time` now and the proof in `amr`.
 */
@Injectable()
export class ReauthenticationService {
  constructor(
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly passwords: PasswordHasher,
    private readonly lockout: LoginLockout,
    private readonly audit: AuditLog,
    private readonly sessions: SessionService,
    private readonly totp: TotpService,
    private readonly recoveryCodes: RecoveryCodesService,
    private readonly codes: OneTimeCodes,
    private readonly limits: SendLimits,
    private readonly sms: SmsService,
    private readonly config: AppConfig,
    private readonly passkeys: PasskeysService,
  ) {}

  /**
   * `POST /api/account/reauthenticate`: `{method: "sms"}` alone asks for a code; every other
   * body is a proof, answered with the session's new token pair.
   */
  async handle(
    user: AuthUser,
    dto: ReauthenticateDto,
    client: ClientInfo,
  ): Promise<IssuedSession | { expires_in: number }> {
    if (dto.password !== undefined && dto.method !== undefined) {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'password', message: 'give either password or method, not both' },
      ]);
    }
    if (dto.method === 'sms' && dto.code === undefined) return this.sendSmsCode(user, client);
    return this.reauthenticate(user, proofOf(dto), client);
  }

  /** A proof, and the session's new token pair. */
  async reauthenticate(user: AuthUser, proof: ReauthenticationProof, client: ClientInfo): Promise<IssuedSession> {
    const method = await this.prove(user, proof, client);
    const { tokens, user: profile } = await this.sessions.reauthenticate(
      { userId: user.id, sessionId: user.sessionId },
      // A passkey proof verified its user: two factors by itself (amr hwk, user, mfa).
      method === 'hwk' ? userVerifyingPasskey() : afterReauthentication(user.amr, method),
    );
    await this.audit.record({
      type: 'account.reauthentication',
      actorId: user.id,
      targetType: 'session',
      targetId: user.sessionId,
      client,
      details: { method },
    });
    return { response: tokenPairResponse(tokens, profile, this.config.jwt.accessTokenTtl), tokens };
  }

  /**
   * Checks one proof under the lockout and answers the RFC 8176 factor it proved; a wrong proof
   * is 401 and a failed attempt of the account.
   */
  async prove(
    user: { id: string; email: string; sessionId: string },
    proof: ReauthenticationProof,
    client: ClientInfo,
  ): Promise<Exclude<AuthenticationMethod, 'mfa'>> {
    switch (proof.kind) {
      case 'password':
        await this.assertPassword(user, proof.password, client);
        return 'pwd';
      case 'totp':
      case 'recovery':
        await this.attempt(
          user.id,
          client,
          () =>
            this.transactions.run((manager) =>
              proof.kind === 'totp'
                ? this.totp.check(manager, user.id, proof.code, false)
                : this.recoveryCodes.use(manager, user.id, proof.code),
            ),
          () => new AppException('INVALID_OTP', 'The code is wrong.'),
        );
        return 'otp';
      case 'sms':
        await this.judged(user.id, client, () => this.checkSmsCode(user, proof.code));
        return 'sms';
      case 'passkey':
        // Answers the options of POST /account/reauthenticate/options, for this account only, with user verification.
        await this.attempt(
          user.id,
          client,
          async () =>
            (await this.passkeys.verifyAssertion(
              proof.assertion,
              'reauthentication',
              { userId: user.id, requireUserVerification: true },
              client,
            )) !== null,
          passkeyRefusal,
        );
        return 'hwk';
    }
  }

  /**
   * `{method: "sms"}` without a code: a code to the account's own mobile, under send-otp's
   * cooldown and hourly caps (per number and per client address). Bound to the asking session.
   */
  async sendSmsCode(user: { id: string; sessionId: string }, client: ClientInfo): Promise<{ expires_in: number }> {
    const profile = await this.users.findProfile(user.id);
    const mobile = profile?.mobile ?? null;
    if (mobile === null) {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'method', message: 'the account has no mobile to send a code to' },
      ]);
    }
    const clientIp = clientAddressKey(client.ip)?.slice(0, 64) ?? null;
    await this.transactions.run(async (manager) => {
      await this.codes.lockRecipient(manager, mobile);
      await this.limits.assertMaySend(manager, 'reauthentication', mobile, clientIp);
      // Bound to the asking session: another session of the account cannot answer it.
      const code = await this.codes.issue(manager, 'reauthentication', {
        recipient: mobile,
        userId: user.id,
        binding: user.sessionId,
        clientIp,
      });
      await this.sms.send({ to: mobile, text: this.codes.smsText(code), kind: 'reauth', userId: user.id }, manager);
    });
    this.sms.dispatch();
    return { expires_in: this.codes.settings('reauthentication').ttlSeconds };
  }

  async assertPassword(user: { id: string; email: string }, password: string, client: ClientInfo): Promise<void> {
    await this.attempt(
      user.id,
      client,
      async () => {
        const account = await this.users.findByEmailWithPassword(user.email);
        return (
          account !== null && account.id === user.id && (await this.passwords.verify(account.passwordHash, password))
        );
      },
      () => new AppException('INVALID_CREDENTIALS', 'The current password is wrong.'),
    );
  }

  /** Runs a check under the lockout; a false result counts as a failed attempt and throws. */
  async attempt(
    userId: string,
    client: ClientInfo,
    check: () => Promise<boolean>,
    refusal: () => AppException,
  ): Promise<void> {
    await this.judged(userId, client, async () => ((await check()) ? true : refusal()));
  }

  /**
   * The lockout around one check: the attempt is counted first (429 while locked), a right
   * answer gives it back, a wrong one (INVALID_CREDENTIALS, INVALID_OTP) stays counted and may
   * lock the account; an expired or burned code is refused without counting.
   */
  private async judged(userId: string, client: ClientInfo, check: () => Promise<true | AppException>): Promise<void> {
    const subject = lockoutSubject(userId, {});
    await this.lockout.begin(subject);
    const outcome = await check().catch(async (error: unknown) => {
      await this.lockout.giveBack(subject);
      throw error;
    });
    if (outcome === true) {
      await this.lockout.giveBack(subject);
      return;
    }
    if (outcome.code === 'INVALID_CREDENTIALS' || outcome.code === 'INVALID_OTP') {
      await this.lockout.failed(subject);
    } else {
      await this.lockout.giveBack(subject);
    }
    await this.audit.recordOnOwnAccount('account.reauthentication_failure', userId, client, { reason: outcome.code });
    throw outcome;
  }

  private async checkSmsCode(user: { id: string; sessionId: string }, code: string): Promise<true | AppException> {
    const result = await this.transactions.run(async (manager) => {
      const row = await this.codes.lockLatest(manager, 'reauthentication', { userId: user.id });
      return this.codes.answer(manager, row, user.sessionId, code);
    });
    return result.ok ? true : result.error;
  }
}

/** The proof a validated request names (the DTO has checked that the fields its method needs are there). */
function proofOf(dto: ReauthenticateDto): ReauthenticationProof {
  switch (dto.method) {
    case undefined:
      return { kind: 'password', password: dto.password! };
    case 'totp':
    case 'recovery':
    case 'sms':
      return { kind: dto.method, code: dto.code! };
    case 'passkey':
      return { kind: 'passkey', assertion: dto.assertion as AuthenticationResponseJSON };
  }
}
