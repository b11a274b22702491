import { Injectable } from '@nestjs/common';
import { DataKeyRing } from '../infra/keys/index.js';
import { purposeFacts, type CodePurpose } from './code-purposes.js';

/**
 * The one keyed hash of every one-time code: HMAC-SHA-256 over the purpose, what the code is bound
 * to (the mobile or address it went to, a temp token's `jti`, a session, a pending change) and the
 * code, under the data key ring's `one-time-code-hash` key. A stored hash is useless for another
 * purpose, binding or service, and only hashes are stored. A code hashed under an older key of
 * the ring still matches, so a key rotation never voids a pending code.
 */
@Injectable()
export class CodeDigest {
  constructor(private readonly keys: DataKeyRing) {}

  of(purpose: CodePurpose, binding: string, code: string): string {
    return this.keys.keyedHash('one-time-code-hash', message(purpose, binding, code));
  }

  /** Whether `code` is the one stored as `storedHash`, under any key of the ring, compared in constant time. */
  matches(storedHash: string, purpose: CodePurpose, binding: string, code: string): boolean {
    return this.keys.matchesKeyedHash('one-time-code-hash', storedHash, message(purpose, binding, code));
  }
}

function message(purpose: CodePurpose, binding: string, code: string): string {
  return `${purposeFacts(purpose).digestLabel}\n${binding}\n${code}`;
}
