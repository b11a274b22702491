import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { LoginLockout, lockoutSubject } from '../limits/login-lockout.service.js';
import { AuditLog } from '../audit/audit-log.service.js';
import { MailService } from '../mail/mail.service.js';
import type { ClientInfo } from './session.service.js';
import { AuthzVersions } from '../rbac/authz-versions.js';
import { UsersRepository } from '../users/users.repository.js';
import { PasswordHasher } from './password-hasher.js';
import { PasswordResetToken } from './password-reset-token.entity.js';
import { sha256Hex } from './token-hash.js';

export const FORGOT_PASSWORD_RESPONSE = {
  message: 'If an account exists for that email, a password reset link has been sent to it.',
};

/**
 * Password reset by email: a single-use token of 32 random bytes whose SHA-256 alone is stored.
 * A new request voids older tokens; a reset revokes every session and signs nobody in.
 */
@Injectable()
export class PasswordResetService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UsersRepository,
    private readonly passwords: PasswordHasher,
    private readonly mail: MailService,
    private readonly config: AppConfig,
    private readonly versions: AuthzVersions,
    private readonly lockout: LoginLockout,
    private readonly audit: AuditLog,
  ) {}

  async requestReset(email: string, client: ClientInfo = {}): Promise<typeof FORGOT_PASSWORD_RESPONSE> {
    const user = await this.users.findIdByEmail(email);
    await this.audit.record({ type: 'password_reset.request', actorId: user?.id ?? null, client, details: { known_account: Boolean(user) } });
    const token = randomBytes(32).toString('base64url');
    // Nearly the same work whether or not the email has an account: one transaction that queues
    // one message (for nobody's email a stand-in that is never sent; an account adds its token's
    // writes). Queued, not sent: a slow mail server shows in no answer.
    await this.dataSource.transaction(async (manager) => {
      // Parallel requests for one address take turns, so the resend interval cannot be raced.
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`reset:${user?.id ?? sha256Hex(email)}`]);
      const issued = user ? await this.issueToken(manager, user.id, token) : false;
      await this.mail.queue(issued ? this.resetMail(user!.email, token) : null, { kind: 'password_reset', userId: user?.id ?? null }, manager);
    });
    this.mail.dispatch();
    return FORGOT_PASSWORD_RESPONSE;
  }

  async reset(token: string, newPassword: string, client: ClientInfo = {}): Promise<Record<string, never>> {
    const tokenHash = sha256Hex(token);
    // A cheap look first, so invalid tokens cost no Argon2 work.
    if (!(await this.findUsable(tokenHash))) throw invalidResetToken();
    const passwordHash = await this.passwords.hash(newPassword);
    const userId = await this.dataSource.transaction(async (manager) => {
      const [row]: { id: string; user_id: string }[] = await manager.query(
        `SELECT id, user_id FROM password_reset_tokens
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() FOR UPDATE`,
        [tokenHash],
      );
      // Re-checked under the row lock: of two concurrent resets with one token, one wins.
      if (!row) throw invalidResetToken();
      await manager.query(`UPDATE password_reset_tokens SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, [row.user_id]);
      await manager.query(`UPDATE users SET password_hash = $1, updated_at = now() WHERE id = $2`, [passwordHash, row.user_id]);
      await manager.query(
        `UPDATE sessions SET revoked_at = now(), revoked_reason = 'password_reset', updated_at = now()
          WHERE user_id = $1 AND revoked_at IS NULL`,
        [row.user_id],
      );
      return row.user_id;
    });
    // After the commit: every instance drops its cached caller, so old access tokens die at once.
    await this.versions.bumpUser(userId);
    // Whoever proved control of the mailbox may sign in with the new password at once.
    await this.lockout.succeeded(lockoutSubject(userId, {}));
    await this.audit.record({ type: 'password_reset.complete', actorId: userId, targetType: 'user', targetId: userId, client });
    return {};
  }

  /**
   * A new token, voiding older ones, unless one was issued within OTP_RESEND_SECONDS: one mail
   * per address per interval, against mail bombing (the answer stays the same).
   */
  private async issueToken(manager: EntityManager, userId: string, token: string): Promise<boolean> {
    const [recent] = await manager.query(
      `SELECT 1 FROM password_reset_tokens WHERE user_id = $1 AND created_at > now() - make_interval(secs => $2) LIMIT 1`,
      [userId, this.config.otp.resendSeconds],
    );
    if (recent) return false;
    await manager.query(`UPDATE password_reset_tokens SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, [userId]);
    await manager.insert(PasswordResetToken, {
      userId,
      tokenHash: sha256Hex(token),
      expiresAt: new Date(Date.now() + this.config.resetTokenTtl * 1000),
    });
    return true;
  }

  private async findUsable(tokenHash: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM password_reset_tokens WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()`,
      [tokenHash],
    );
    return rows.length > 0;
  }

  /** Fixed text and the link only: never text the user chose (a name could carry a phishing line). */
  private resetMail(to: string, token: string) {
    const link = `${this.config.http.appUrl}/reset-password?token=${token}`;
    const minutes = Math.round(this.config.resetTokenTtl / 60);
    return {
      to,
      subject: 'Reset your password',
      text:
        `Hello,\n\nSomeone asked to reset the password of your account. If it was you, open this link ` +
        `within ${minutes} minutes:\n\n${link}\n\nIf it was not you, ignore this mail; your password stays as it is.\n`,
    };
  }
}

function invalidResetToken(): AppException {
  return new AppException('RESET_TOKEN_INVALID', 'The reset link is invalid, expired or already used.');
}
