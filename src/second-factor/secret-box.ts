import { Injectable } from '@nestjs/common';
import { derivedKey, open, seal } from '../common/aead.js';
import { AppConfig } from '../config/app-config.js';

const VERSION = 'v1';

/**
 * Encrypts small secrets at rest (the authenticator app's shared secret) with AES-256-GCM under a
 * key derived from JWT_SECRET with HKDF, so a copy of the database alone does not yield them.
 * Stored form: `v1.` + base64url(iv | tag | ciphertext).
 */
@Injectable()
export class SecretBox {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    this.key = derivedKey(config.jwt.secret, 'totp-secret-encryption');
  }

  /** Bound to its owner (`associatedData`): a ciphertext copied to another account's row does not open. */
  seal(plaintext: string, associatedData: string): string {
    return `${VERSION}.${seal(this.key, associatedData, plaintext).toString('base64url')}`;
  }

  open(sealed: string, associatedData: string): string {
    const [version, body] = sealed.split('.');
    if (version !== VERSION || !body) throw new Error('Unknown sealed-secret format');
    return open(this.key, associatedData, Buffer.from(body, 'base64url'));
  }
}
