import { Injectable } from '@nestjs/common';
import { createHmac, hkdfSync, randomInt } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { SecondFactorsRepository } from './second-factors.repository.js';

export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32 letters: no I, L, O or U to misread. 10 of them carry 50 bits. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * Single-use recovery codes, shown once at enrolment. Only an HMAC-SHA-256 under a key derived
 * from the server secret is stored, over the user id and the code, so a hash is useless elsewhere.
 */
@Injectable()
export class RecoveryCodesService {
  private readonly key: Buffer;

  constructor(
    private readonly repository: SecondFactorsRepository,
    config: AppConfig,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', config.jwt.secret, '', 'recovery-code-hash', 32));
  }

  /** Ten new codes replace any earlier ones; the plain codes are returned once and never stored. */
  async issue(manager: EntityManager, userId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
      const raw = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
      return `${raw.slice(0, 5)}-${raw.slice(5)}`;
    });
    await this.repository.replaceRecoveryCodes(
      manager,
      userId,
      codes.map((code) => this.hash(userId, code)),
    );
    return codes;
  }

  /** Uses the code if it is one of the user's unused codes. */
  use(manager: EntityManager, userId: string, code: string): Promise<boolean> {
    return this.repository.useRecoveryCode(manager, userId, this.hash(userId, code));
  }

  /** Case, spaces and dashes do not matter: people copy codes by hand. */
  private hash(userId: string, code: string): string {
    const normalised = code.toLowerCase().replace(/[\s-]/g, '');
    return createHmac('sha256', this.key).update(`${userId}\n${normalised}`).digest('hex');
  }
}
