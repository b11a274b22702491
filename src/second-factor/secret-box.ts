import { Injectable } from '@nestjs/common';
import { DataKeyRing } from '../infra/keys/index.js';

const VERSION = 'v1';

/**
 * Encrypts small secrets at rest (the authenticator app's shared secret) with AES-256-GCM under
 * the data key ring's `totp-secret` key, so a copy of the database alone does not yield them.
 * Stored form: `v1.` + base64url(iv | tag | ciphertext); any key of the ring opens it.
 */
@Injectable()
export class SecretBox {
  constructor(private readonly keys: DataKeyRing) {}

  /** Bound to its owner (`associatedData`): a ciphertext copied to another account's row does not open. */
  seal(plaintext: string, associatedData: string): string {
    return `${VERSION}.${this.keys.seal('totp-secret', associatedData, plaintext).toString('base64url')}`;
  }

  open(sealed: string, associatedData: string): string {
    return this.openWith(sealed, associatedData).plaintext;
  }

  /** The secret, and whether the ring's sealing key sealed it (otherwise a re-seal moves it there). */
  openWith(sealed: string, associatedData: string): { plaintext: string; sealedUnderFirst: boolean } {
    const [version, body] = sealed.split('.');
    if (version !== VERSION || !body) throw new Error('Unknown sealed-secret format');
    return this.keys.openWith('totp-secret', associatedData, Buffer.from(body, 'base64url'));
  }
}
