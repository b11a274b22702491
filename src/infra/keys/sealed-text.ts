import type { DataKeyPurpose, DataKeyRing } from './data-key-ring.js';

const VERSION = 'v1';

/**
 * A secret stored as text, sealed with AES-256-GCM under one purpose's key of the data key ring:
 * `v1.` + base64url(iv | tag | ciphertext). It is bound to its owner (`associatedData`), so a value
 * copied into another row does not open; any key of the ring opens it.
 */
export abstract class SealedText {
  protected constructor(
    private readonly keys: DataKeyRing,
    private readonly purpose: DataKeyPurpose,
  ) {}

  seal(plaintext: string, associatedData: string): string {
    return `${VERSION}.${this.keys.seal(this.purpose, associatedData, plaintext).toString('base64url')}`;
  }

  open(sealed: string, associatedData: string): string {
    return this.openWith(sealed, associatedData).plaintext;
  }

  /** The secret, and whether the ring's sealing key sealed it (otherwise a re-seal moves it there). */
  openWith(sealed: string, associatedData: string): { plaintext: string; sealedUnderFirst: boolean } {
    const [version, body] = sealed.split('.');
    if (version !== VERSION || !body) throw new Error(`Unknown sealed ${this.purpose} format`);
    return this.keys.openWith(this.purpose, associatedData, Buffer.from(body, 'base64url'));
  }
}
