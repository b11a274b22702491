import { Injectable } from '@nestjs/common';
import { createHmac, hkdfSync, randomInt, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../config/app-config.js';
import type { OtpPurpose } from './otp-codes.repository.js';

export const MAX_OTP_ATTEMPTS = 3;
/** The specification's fixed development code. */
const DEVELOPMENT_CODE = '1234567890';

/**
 * Making and checking codes. Codes come from `crypto.randomInt`; only an HMAC-SHA-256 keyed by a
 * key derived from the server secret is stored, over the purpose, what the code is bound to (the
 * mobile, or the temp token) and the code itself, so a stored hash is useless anywhere else.
 */
@Injectable()
export class OtpCodes {
  private readonly key: Buffer;

  constructor(private readonly config: AppConfig) {
    this.key = Buffer.from(hkdfSync('sha256', config.jwt.secret, '', 'otp-code-hash', 32));
  }

  /** In development (APP_ENV=development, from configuration only) the code is always 123456. */
  generate(): string {
    const length = this.config.otp.length;
    if (this.config.isDevelopment) return DEVELOPMENT_CODE.slice(0, length).padEnd(length, '0');
    return String(randomInt(0, 10 ** length)).padStart(length, '0');
  }

  hash(purpose: OtpPurpose | 'email', binding: string, code: string): string {
    return createHmac('sha256', this.key).update(`${purpose}\n${binding}\n${code}`).digest('hex');
  }

  matches(storedHash: string, purpose: OtpPurpose | 'email', binding: string, code: string): boolean {
    const expected = Buffer.from(storedHash, 'hex');
    const actual = Buffer.from(this.hash(purpose, binding, code), 'hex');
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  /** The SMS text: the code is its only run of digits. */
  message(code: string): string {
    return `Your sign-in code is ${code}. It expires soon. Never share it with anyone.`;
  }
}
