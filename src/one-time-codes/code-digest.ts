import { Injectable } from '@nestjs/common';
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../config/app-config.js';
import { purposeFacts, type CodePurpose } from './code-purposes.js';

/**
 * The one keyed hash of every one-time code: HMAC-SHA-256 over the purpose, what the code is bound
 * to (the mobile or address it went to, a temp token's `jti`, a session, a pending change) and the
 * code, under one key derived from the server secret. A stored hash is useless for another
 * purpose, binding or service, and only hashes are stored.
 */
@Injectable()
export class CodeDigest {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    // The key's one source: moving it (to a data key ring, say) is this line.
    this.key = Buffer.from(hkdfSync('sha256', config.jwt.secret, '', 'otp-code-hash', 32));
  }

  of(purpose: CodePurpose, binding: string, code: string): string {
    return createHmac('sha256', this.key)
      .update(`${purposeFacts(purpose).digestLabel}\n${binding}\n${code}`)
      .digest('hex');
  }

  /** Whether `code` is the one stored as `storedHash`, compared in constant time. */
  matches(storedHash: string, purpose: CodePurpose, binding: string, code: string): boolean {
    const expected = Buffer.from(storedHash, 'hex');
    const actual = Buffer.from(this.of(purpose, binding, code), 'hex');
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }
}
