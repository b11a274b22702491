import { Injectable } from '@nestjs/common';
import { DataKeyRing } from '../keys/index.js';

/**
 * Seals queued messages (they hold codes and reset links) with AES-256-GCM under the data key
 * ring's `outbox-payload` key. The row id is the associated data, so a payload copied into another
 * row does not open; any key of the ring opens it.
 */
@Injectable()
export class OutboxCipher {
  constructor(private readonly keys: DataKeyRing) {}

  seal(rowId: string, value: unknown): Buffer {
    return this.keys.seal('outbox-payload', rowId, JSON.stringify(value));
  }

  /** Throws when the payload was tampered with or sealed under a key the ring no longer holds. */
  open<T>(rowId: string, sealed: Buffer): T {
    return JSON.parse(this.keys.open('outbox-payload', rowId, sealed)) as T;
  }

  /** The payload and whether the ring's sealing key sealed it. */
  openWith<T>(rowId: string, sealed: Buffer): { value: T; sealedUnderFirst: boolean } {
    const opened = this.keys.openWith('outbox-payload', rowId, sealed);
    return { value: JSON.parse(opened.plaintext) as T, sealedUnderFirst: opened.sealedUnderFirst };
  }
}
