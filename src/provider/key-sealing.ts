import { Injectable } from '@nestjs/common';
import { DataKeyRing, SealedText } from '../infra/keys/index.js';

/**
 * The one place the provider's private keys are sealed at rest and opened: under the data key
 * ring's `provider-signing-key` key, bound to the key's `kid`. Any key of the ring opens it (with
 * DATA_KEYS unset: JWT_SECRET and every JWT_PREVIOUS_SECRETS entry, as before).
 */
@Injectable()
export class KeySealing extends SealedText {
  constructor(keys: DataKeyRing) {
    super(keys, 'provider-signing-key');
  }

  /** The private key, and whether the ring's sealing key sealed it; the error names the key. */
  override openWith(sealed: string, kid: string): { plaintext: string; sealedUnderFirst: boolean } {
    try {
      return super.openWith(sealed, kid);
    } catch {
      throw new Error(`The signing key ${kid} cannot be opened with any key of the data key ring.`);
    }
  }
}
