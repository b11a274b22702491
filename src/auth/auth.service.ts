import { Injectable } from '@nestjs/common';
import { AuditLog } from '../core/audit/audit-log.service.js';
import { AppException } from '../common/app-exception.js';
import { asConflict } from '../common/unique-violation.js';
import { AppConfig } from '../config/app-config.js';
import { LoginLockout, lockoutSubject } from '../core/lockout/login-lockout.service.js';
import { SystemRoles } from '@auth-rbac/nest-guard';
import { UsersRepository, type UserWithPassword } from '../core/users/users.repository.js';
import type { LoginDto, RegisterDto } from './auth.dto.js';
import { PasswordHasher } from '../core/passwords/password-hasher.js';
import { SettingsService } from '../core/settings/settings.service.js';
import { TwoFactorService, type TwoFactorChallenge } from '../core/second-factor/two-factor.service.js';
import {
  SessionService,
  tokenPairResponse,
  type ClientInfo,
  type IssuedSession,
  type PublicUser,
  type TokenPairResponse,
} from '../core/sessions/session.service.js';
import { Transactions } from '../database/transactions.js';
import { oneFactor } from '../core/sessions/authentication-methods.js';

export type { PublicUser, TokenPairResponse };

/** Registration and password logins (email or mobile). */
@Injectable()
export class AuthService {
  constructor(
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly passwords: PasswordHasher,
    private readonly sessions: SessionService,
    private readonly settings: SettingsService,
    private readonly twoFactor: TwoFactorService,
    private readonly config: AppConfig,
    private readonly lockout: LoginLockout,
    private readonly audit: AuditLog,
  ) {}

  async register(dto: RegisterDto, client: ClientInfo): Promise<IssuedSession> {
    // Hashing happens before the transaction: Argon2 is slow and must not hold a connection.
    const passwordHash = await this.passwords.hash(dto.password);
    let user: PublicUser;
    try {
      user = await this.transactions.run((manager) =>
        this.users.insertWithRole(
          manager,
          { name: dto.name, email: dto.email, mobile: dto.mobile ?? null, passwordHash },
          SystemRoles.User,
        ),
      );
    } catch (error) {
      throw asConflict(error);
    }
    await this.audit.record({ type: 'register', actorId: user.id, targetType: 'user', targetId: user.id, client });
    return this.startSession(user, client);
  }

  /** A session, or, for administrators when both login methods are on, a two-factor challenge. */
  async login(dto: LoginDto, client: ClientInfo): Promise<IssuedSession | { challenge: TwoFactorChallenge }> {
    const methods = await this.settings.getLoginMethods();
    if (!methods.emailPassword) {
      throw new AppException('LOGIN_METHOD_DISABLED', 'Password login is disabled.');
    }
    const user = await this.verifyPassword(dto, client);
    const method = dto.email ? 'email' : 'mobile';
    const secondFactors = await this.twoFactor.methodsFor(user);
    if (secondFactors.length > 0) {
      // The lockout counts failures only: the right password gives back the attempt it counted,
      // without clearing earlier failures (wrong codes add to them; TwoFactorService.verify),
      // also when the challenge is then refused (the mobile's SMS cap).
      await this.lockout.giveBack(lockoutSubject(user.id, dto));
      const challenge = await this.twoFactor.challenge(user, client, secondFactors);
      await this.audit.record({ type: '2fa.challenge', actorId: user.id, client, details: { method } });
      return { challenge };
    }
    // One statement: the session, its audit event, and the end of the lockout count.
    return this.sessions.startWithResponse(user, client, oneFactor('pwd'), {
      event: { type: 'login.success', actorId: user.id, details: { method } },
      attemptsOf: lockoutSubject(user.id, dto),
    });
  }

  /** Same error, and the same Argon2 work, whether the account is unknown or the password wrong. */
  private async verifyPassword(dto: LoginDto, client: ClientInfo): Promise<UserWithPassword> {
    // Counted before the password is checked, so parallel guesses cannot outrun the lockout (429).
    const { account: user, subject, refusal } = await this.lockout.beginSignIn(dto);
    const method = dto.email ? 'email' : 'mobile';
    if (refusal) {
      await this.audit.record({ type: 'login.locked', actorId: user?.id ?? null, client, details: { method } });
      throw refusal;
    }
    const check = user
      ? await this.passwords.check(user.passwordHash, dto.password)
      : { valid: await this.passwords.verifyAgainstDummy(dto.password) };
    if (!user || !check.valid) {
      await this.lockout.failed(subject);
      await this.audit.record({
        type: 'login.failure',
        actorId: user?.id ?? null,
        client,
        details: { method, known_account: Boolean(user) },
      });
      throw new AppException('INVALID_CREDENTIALS', 'Invalid credentials.');
    }
    // The caller clears the count once the sign-in is complete (at once, or after the second factor).
    // A hash of the password's raw form (stored before NFKC normalisation) is replaced once it matched.
    if (check.rehash) await this.users.replacePasswordHash(user.id, user.passwordHash, check.rehash);
    return user;
  }

  async refresh(refreshToken: string): Promise<IssuedSession> {
    const { tokens, user } = await this.sessions.rotate(refreshToken);
    return { response: tokenPairResponse(tokens, user, this.config.jwt.accessTokenTtl), tokens };
  }

  startSession(user: PublicUser, client: ClientInfo): Promise<IssuedSession> {
    return this.sessions.startWithResponse(user, client, oneFactor('pwd'));
  }
}
