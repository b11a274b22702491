import { NewAccounts } from '../rbac/index.js';
import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/index.js';
import { AppException } from '../common/app-exception.js';
import { asConflict } from '../common/unique-violation.js';
import { AppConfig } from '../config/app-config.js';
import { LoginLockout, lockoutSubject } from '../lockout/index.js';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';
import {
  UsersRepository,
  type UserWithPassword,
  PasswordHasher,
  assertMaySignIn,
  isDisabled,
} from '../identity/index.js';
import type { LoginDto, RegisterDto } from './auth.dto.js';
import { SettingsService } from '../settings/index.js';
import { TwoFactorService, type TwoFactorChallenge } from '../second-factor/index.js';
import {
  SessionService,
  tokenPairResponse,
  type IssuedSession,
  type PublicUser,
  type TokenPairResponse,
  oneFactor,
} from '../sessions/index.js';
import { Transactions } from '../infra/database/transactions.js';
import type { SignInAccount } from '../identity/index.js';
import { EmailVerificationService } from '../account/index.js';
import type { ClientInfo } from '../common/client-info.js';

/** A registration under REQUIRE_EMAIL_VERIFICATION: the account, and no session until the address is proved. */
export interface PendingVerification {
  user: PublicUser;
  requires_email_verification: true;
}

export type { PublicUser, TokenPairResponse };

/** Registration and password logins (email or mobile). */
@Injectable()
export class AuthService {
  constructor(
    private readonly newAccounts: NewAccounts,
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly passwords: PasswordHasher,
    private readonly sessions: SessionService,
    private readonly settings: SettingsService,
    private readonly twoFactor: TwoFactorService,
    private readonly config: AppConfig,
    private readonly lockout: LoginLockout,
    private readonly audit: AuditLog,
    private readonly verification: EmailVerificationService,
  ) {}

  /**
   * A new account and its verification link (mailed whatever REQUIRE_EMAIL_VERIFICATION says); a
   * session at once, unless the flag asks for the address to be proved first.
   */
  async register(dto: RegisterDto, client: ClientInfo): Promise<IssuedSession | PendingVerification> {
    // Hashing happens before the transaction: Argon2 is slow and must not hold a connection.
    const passwordHash = await this.passwords.hash(dto.password);
    let user: SignInAccount;
    try {
      user = await this.transactions.run(async (manager) => {
        const created = await this.newAccounts.create(
          manager,
          { name: dto.name, email: dto.email, mobile: dto.mobile ?? null, passwordHash },
          SystemRoles.User,
        );
        await this.verification.issueInTransaction(manager, created);
        return created;
      });
    } catch (error) {
      throw asConflict(error);
    }
    this.verification.dispatch();
    await this.audit.recordOnOwnAccount('register', user.id, client);
    if (this.config.requireEmailVerification) {
      return {
        user: { id: user.id, name: user.name, email: user.email, mobile: user.mobile },
        requires_email_verification: true,
      };
    }
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
    // Said only now, after the right password: to anyone else the account looks like any other.
    // The password was right, so the attempt does not count toward the lockout.
    if (isDisabled(user)) {
      await this.lockout.succeeded(lockoutSubject(user.id, dto));
      await this.audit.record({ type: 'login.disabled', actorId: user.id, client, details: { method } });
      assertMaySignIn(user);
    }
    if (this.config.requireEmailVerification && !user.emailVerified) {
      await this.lockout.succeeded(lockoutSubject(user.id, dto));
      await this.audit.record({ type: 'login.unverified', actorId: user.id, client, details: { method } });
      throw new AppException('EMAIL_NOT_VERIFIED', 'Verify your email address before signing in.');
    }
    const secondFactors = await this.twoFactor.methodsFor(user);
    if (secondFactors.length > 0) {
      // The lockout counts failures only: the right password gives back the attempt it counted,
      // without clearing earlier failures (wrong codes add to them; TwoFactorService.verify),
      // also when the challenge is then refused (the mobile's SMS cap).
      await this.lockout.giveBack(lockoutSubject(user.id, dto));
      const challenge = await this.twoFactor.challenge(user, client, secondFactors);
      // `login`: how the first factor named the account; `methods`: what the challenge accepts.
      await this.audit.record({
        type: '2fa.challenge',
        actorId: user.id,
        client,
        details: { login: method, methods: secondFactors },
      });
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

  startSession(user: SignInAccount, client: ClientInfo): Promise<IssuedSession> {
    return this.sessions.startWithResponse(user, client, oneFactor('pwd'));
  }
}
