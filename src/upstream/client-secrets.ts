import { Injectable } from '@nestjs/common';
import { DataKeyRing, type ResealReport } from '../infra/keys/index.js';

const VERSION = 'v1';

/**
 * The one place an upstream provider's client secret is sealed and opened: AES-256-GCM under the
 * data key ring's `upstream-client-secret` key, bound to the provider's id (a sealed secret copied
 * onto another provider's row opens nowhere). The secret is never returned nor logged.
 */
@Injectable()
export class ClientSecrets {
  constructor(private readonly keys: DataKeyRing) {}

  seal(providerId: string, secret: string): string {
    return `${VERSION}.${this.keys.seal('upstream-client-secret', providerId, secret).toString('base64url')}`;
  }

  open(providerId: string, sealed: string): string {
    return this.openWith(providerId, sealed).plaintext;
  }

  openWith(providerId: string, sealed: string): { plaintext: string; sealedUnderFirst: boolean } {
    const [version, body] = sealed.split('.');
    if (version !== VERSION || !body) throw new Error('Unknown sealed-secret format');
    return this.keys.openWith('upstream-client-secret', providerId, Buffer.from(body, 'base64url'));
  }
}

export type { ResealReport };
