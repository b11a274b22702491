import { Injectable, Logger } from '@nestjs/common';
import { Secret, TOTP } from 'otpauth';
import type { EntityManager } from 'typeorm';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { SecondFactorsRepository } from './second-factors.repository.js';
import { SecretBox } from './secret-box.js';
import { Transactions } from '../infra/database/transactions.js';
import { resealEach, type ResealReport } from '../infra/keys/index.js';

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30-second steps. */
const PERIOD = 30;
const DIGITS = 6;
/** One step either side, for clocks a little off (RFC 6238 §5.2). */
const WINDOW = 1;

export interface TotpEnrolment {
  otpauth_uri: string;
  qr_svg: string;
}

/**
 * The authenticator app: enrolment, and checking a code. A code is accepted once: the time step
 * it belongs to is recorded, and a code of that step or an earlier one is refused afterwards.
 */
@Injectable()
export class TotpService {
  private readonly logger = new Logger('Totp');

  constructor(
    private readonly transactions: Transactions,
    private readonly repository: SecondFactorsRepository,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
  ) {}

  isEnrolled(userId: string, manager?: EntityManager): Promise<boolean> {
    return this.repository.hasConfirmedTotp(userId, manager);
  }

  /** A fresh secret, pending until its first code is confirmed; a confirmed app must be removed first. */
  async startEnrolment(user: { id: string; email: string }): Promise<TotpEnrolment> {
    if (await this.repository.hasConfirmedTotp(user.id)) {
      throw new AppException('CONFLICT', 'An authenticator app is already enrolled; remove it first.');
    }
    const secret = new Secret({ size: 20 });
    await this.repository.savePendingTotp(user.id, this.box.seal(secret.base32, user.id));
    const uri = this.totp(secret, user.email).toString();
    // Loaded by the first enrolment, not at start.
    const { default: QRCode } = await import('qrcode');
    return { otpauth_uri: uri, qr_svg: await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M' }) };
  }

  /**
   * Checks a code of the pending enrolment (`confirm`) or of the enrolled app, in the caller's
   * transaction, and records its step. False for a wrong code, a replayed one, or no app.
   */
  async check(manager: EntityManager, userId: string, code: string, confirm: boolean): Promise<boolean> {
    const row = await this.repository.findTotp(userId, manager);
    if (!row || (row.confirmedAt === null) !== confirm) return false;
    let secret: Secret;
    try {
      secret = Secret.fromBase32(this.box.open(row.secretCiphertext, userId));
    } catch {
      // Sealed under a key the data key ring no longer holds (dropped before `rotate-data-key`
      // re-sealed it), or damaged: no code can match. `reset-2fa` lets an operator clear it.
      this.logger.error(`Authenticator secret of user ${userId} cannot be decrypted`);
      return false;
    }
    const now = Date.now();
    const delta = this.totp(secret).validate({ token: code, timestamp: now, window: WINDOW });
    if (delta === null) return false;
    const step = Math.floor(now / 1000 / PERIOD) + delta;
    return this.repository.claimTotpStep(manager, userId, step, confirm);
  }

  /**
   * `rotate-data-key`: every authenticator secret sealed under an older key of the ring is sealed
   * again under the first, so that the older key may be dropped.
   */
  async resealSecrets(): Promise<ResealReport> {
    // A row replaced meanwhile was replaced by an enrolment, sealed under the first key.
    return resealEach(
      await this.repository.findAllTotpSecrets(),
      (row) => this.box.openWith(row.secretCiphertext, row.userId),
      (row, opened) =>
        this.repository.replaceTotpSecret(
          row.userId,
          row.secretCiphertext,
          this.box.seal(opened.plaintext, row.userId),
        ),
    );
  }

  private totp(secret: Secret, label = 'account'): TOTP {
    return new TOTP({ issuer: this.issuer(), label, secret, algorithm: 'SHA1', digits: DIGITS, period: PERIOD });
  }

  /** The name the app shows beside the code: the service's host. */
  private issuer(): string {
    try {
      return new URL(this.config.http.appUrl).host;
    } catch {
      return 'auth-rbac-service';
    }
  }
}
