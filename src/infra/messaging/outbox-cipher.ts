import { Injectable } from '@nestjs/common';
import { derivedKey, open, seal } from '../../common/aead.js';
import { AppConfig } from '../../config/app-config.js';

/**
 * Seals queued messages (they hold codes and reset links) with AES-256-GCM under a key derived
 * with HKDF from JWT_SECRET for this purpose alone. The row id is the associated data, so a
 * payload copied into another row does not open.
 */
@Injectable()
export class OutboxCipher {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    this.key = derivedKey(config.jwt.secret, 'outbox-payload-aes-256-gcm');
  }

  seal(rowId: string, value: unknown): Buffer {
    return seal(this.key, rowId, JSON.stringify(value));
  }

  /** Throws when the payload was tampered with or sealed under another secret. */
  open<T>(rowId: string, sealed: Buffer): T {
    return JSON.parse(open(this.key, rowId, sealed)) as T;
  }
}
