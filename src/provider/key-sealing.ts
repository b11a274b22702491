import { Injectable } from '@nestjs/common';
import { derivedKey, open, seal } from '../common/aead.js';
import { AppConfig } from '../config/app-config.js';

const VERSION = 'v1';
const PURPOSE = 'openid-provider-signing-keys';

/**
 * The one place the provider's private keys are sealed at rest and opened: AES-256-GCM under a key
 * derived (HKDF) from JWT_SECRET for this purpose alone, bound to the key's `kid`. A key sealed
 * under a secret since retired to JWT_PREVIOUS_SECRETS still opens. When the data key ring
 * (`DATA_KEYS`) lands, this file is what moves onto it.
 */
@Injectable()
export class KeySealing {
  private readonly sealing: Buffer;
  private readonly opening: Buffer[];

  constructor(config: AppConfig) {
    this.sealing = derivedKey(config.jwt.secret, PURPOSE);
    this.opening = [this.sealing, ...config.signing.previousSecrets.map(({ secret }) => derivedKey(secret, PURPOSE))];
  }

  seal(privateKeyPem: string, kid: string): string {
    return `${VERSION}.${seal(this.sealing, kid, privateKeyPem).toString('base64url')}`;
  }

  open(sealed: string, kid: string): string {
    const [version, body] = sealed.split('.');
    if (version !== VERSION || !body) throw new Error('Unknown sealed-key format');
    for (const key of this.opening) {
      try {
        return open(key, kid, Buffer.from(body, 'base64url'));
      } catch {
        // Sealed under another secret of the ring: try the next.
      }
    }
    throw new Error(`The signing key ${kid} cannot be opened with JWT_SECRET or JWT_PREVIOUS_SECRETS.`);
  }
}
