import { Injectable } from '@nestjs/common';
import { DataKeyRing, SealedText } from '../infra/keys/index.js';

/**
 * The one place an upstream provider's client secret is sealed and opened: AES-256-GCM under the
 * data key ring's `upstream-client-secret` key, bound to the provider's id (a sealed secret copied
 * onto another provider's row opens nowhere). The secret is never returned nor logged.
 */
@Injectable()
export class ClientSecrets extends SealedText {
  constructor(keys: DataKeyRing) {
    super(keys, 'upstream-client-secret');
  }
}
