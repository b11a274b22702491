import { Injectable } from '@nestjs/common';
import { DataKeyRing, SealedText } from '../infra/keys/index.js';

/**
 * Encrypts small secrets at rest (the authenticator app's shared secret, bound to its user) under
 * the data key ring's `totp-secret` key, so a copy of the database alone does not yield them.
 */
@Injectable()
export class SecretBox extends SealedText {
  constructor(keys: DataKeyRing) {
    super(keys, 'totp-secret');
  }
}
