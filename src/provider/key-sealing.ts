import { Injectable } from '@nestjs/common';
import { DataKeyRing } from '../infra/keys/index.js';

const VERSION = 'v1';

/**
 * The one place the provider's private keys are sealed at rest and opened: AES-256-GCM under the
 * data key ring's `provider-signing-key` key, bound to the key's `kid`. Any key of the ring opens
 * it (with DATA_KEYS unset: JWT_SECRET and every JWT_PREVIOUS_SECRETS entry, as before).
 */
@Injectable()
export class KeySealing {
  constructor(private readonly keys: DataKeyRing) {}

  seal(privateKeyPem: string, kid: string): string {
    return `${VERSION}.${this.keys.seal('provider-signing-key', kid, privateKeyPem).toString('base64url')}`;
  }

  open(sealed: string, kid: string): string {
    return this.openWith(sealed, kid).plaintext;
  }

  /** The private key, and whether the ring's sealing key sealed it (otherwise a re-seal moves it there). */
  openWith(sealed: string, kid: string): { plaintext: string; sealedUnderFirst: boolean } {
    const [version, body] = sealed.split('.');
    if (version !== VERSION || !body) throw new Error('Unknown sealed-key format');
    try {
      return this.keys.openWith('provider-signing-key', kid, Buffer.from(body, 'base64url'));
    } catch {
      throw new Error(`The signing key ${kid} cannot be opened with any key of the data key ring.`);
    }
  }
}
