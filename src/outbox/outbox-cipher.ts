import { Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { AppConfig } from '../config/app-config.js';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals queued messages (they hold codes and reset links) with AES-256-GCM under a key derived
 * with HKDF from JWT_SECRET for this purpose alone. The row id is the associated data, so a
 * payload copied into another row does not open.
 */
@Injectable()
export class OutboxCipher {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    this.key = Buffer.from(hkdfSync('sha256', config.jwt.secret, '', 'outbox-payload-aes-256-gcm', 32));
  }

  seal(rowId: string, value: unknown): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(rowId));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]);
  }

  /** Throws when the payload was tampered with or sealed under another secret. */
  open<T>(rowId: string, sealed: Buffer): T {
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(rowId));
    decipher.setAuthTag(sealed.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    const plaintext = Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(plaintext.toString('utf8')) as T;
  }
}
