import { Injectable } from '@nestjs/common';
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../../config/app-config.js';
import { open, seal } from './aead.js';

/**
 * What each key of the ring is used for. One key, one purpose (NIST SP 800-57): the key of a
 * purpose is derived with HKDF-SHA256 from a root of the ring and the purpose's label, so a key
 * that leaks from one use opens nothing of another. The labels are those the service derived from
 * JWT_SECRET before the ring existed: with DATA_KEYS unset, or with JWT_SECRET as an entry of it,
 * the data sealed then still opens.
 */
const PURPOSE_LABELS = {
  /** AES-256-GCM of authenticator-app secrets (second-factor/secret-box.ts, through sealed-text.ts). */
  'totp-secret': 'totp-secret-encryption',
  /** AES-256-GCM of queued mail and SMS payloads (infra/messaging/outbox-cipher.ts). */
  'outbox-payload': 'outbox-payload-aes-256-gcm',
  /** HMAC-SHA-256 of every one-time code (one-time-codes/code-digest.ts). */
  'one-time-code-hash': 'otp-code-hash',
  /** AES-256-GCM of the OpenID provider's private signing keys (provider/key-sealing.ts, through sealed-text.ts). */
  'provider-signing-key': 'openid-provider-signing-keys',
  /** AES-256-GCM of upstream identity providers' client secrets (upstream/client-secrets.ts). */
  'upstream-client-secret': 'upstream-provider-client-secret',
  /** HMAC-SHA-256 of recovery codes made before they were hashed with Argon2id; they still verify. */
  'legacy-recovery-code-hash': 'recovery-code-hash',
} as const;

export type DataKeyPurpose = keyof typeof PURPOSE_LABELS;

/** What a re-seal under the sealing key did, per kind of secret: counts only, never a value. */
export interface ResealReport {
  /** Opened under an older key and sealed again under the first. */
  resealed: number;
  /** Already under the first key. */
  current: number;
  /** Opened by no key of the ring (sealed under a key already dropped, or damaged). */
  unreadable: number;
}

/**
 * The one re-seal loop of `rotate-data-key`: each row is opened with whichever key of the ring
 * sealed it; one the first key sealed is left alone, one no key opens is counted and left, and the
 * rest are sealed again under the first key by `sealAgain`, which answers whether it replaced the
 * row (false: the row changed meanwhile, so it holds nothing under an older key any more).
 */
export async function resealEach<Row, Opened extends { sealedUnderFirst: boolean }>(
  rows: Iterable<Row>,
  open: (row: Row) => Opened,
  sealAgain: (row: Row, opened: Opened) => Promise<boolean>,
): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, current: 0, unreadable: 0 };
  for (const row of rows) {
    let opened: Opened;
    try {
      opened = open(row);
    } catch {
      report.unreadable += 1;
      continue;
    }
    if (!opened.sealedUnderFirst) {
      if (await sealAgain(row, opened)) {
        report.resealed += 1;
        continue;
      }
    }
    report.current += 1;
  }
  return report;
}

/**
 * The one owner of key material for secrets at rest (contract, "Keys at rest"): DATA_KEYS, or
 * keys derived from JWT_SECRET and JWT_PREVIOUS_SECRETS when it is unset. The first root seals and
 * keys new hashes; every root opens and verifies, so a rotation (of either variable) never makes
 * a stored secret unreadable. Token signing keys are not here (src/sessions/signing-keys.ts).
 */
@Injectable()
export class DataKeyRing {
  private readonly keys: Map<DataKeyPurpose, Buffer[]>;

  constructor(config: AppConfig) {
    const roots = config.dataKeys.roots;
    if (roots.length === 0) throw new Error('The data key ring has no key.');
    this.keys = new Map(
      (Object.keys(PURPOSE_LABELS) as DataKeyPurpose[]).map((purpose) => [
        purpose,
        roots.map((root) => Buffer.from(hkdfSync('sha256', root, '', PURPOSE_LABELS[purpose], 32))),
      ]),
    );
  }

  /** How many keys the ring holds (the sealing one included). */
  get size(): number {
    return this.keysOf('totp-secret').length;
  }

  /** AES-256-GCM under the sealing key of the purpose, bound to `associatedData`. */
  seal(purpose: DataKeyPurpose, associatedData: string, plaintext: string): Buffer {
    return seal(this.keysOf(purpose)[0], associatedData, plaintext);
  }

  /**
   * Opens under whichever key of the ring sealed it; `sealedUnderFirst` says whether that was the
   * sealing key (a re-seal is then needless). Throws when no key opens it.
   */
  openWith(
    purpose: DataKeyPurpose,
    associatedData: string,
    sealed: Buffer,
  ): { plaintext: string; sealedUnderFirst: boolean } {
    const keys = this.keysOf(purpose);
    for (const [index, key] of keys.entries()) {
      try {
        return { plaintext: open(key, associatedData, sealed), sealedUnderFirst: index === 0 };
      } catch {
        // Not this key: the next one may have sealed it.
      }
    }
    throw new Error('No key of the data key ring opens this value (tampered with, or sealed under a dropped key).');
  }

  open(purpose: DataKeyPurpose, associatedData: string, sealed: Buffer): string {
    return this.openWith(purpose, associatedData, sealed).plaintext;
  }

  /** The keyed hash (HMAC-SHA-256, hex) under the sealing key: what is stored for a new secret. */
  keyedHash(purpose: DataKeyPurpose, data: string): string {
    return hmacHex(this.keysOf(purpose)[0], data);
  }

  /** The keyed hash under every key of the ring, the sealing key's first: what a lookup by hash matches. */
  keyedHashes(purpose: DataKeyPurpose, data: string): string[] {
    return this.keysOf(purpose).map((key) => hmacHex(key, data));
  }

  /** Whether `storedHash` is the keyed hash of `data` under any key of the ring, compared in constant time. */
  matchesKeyedHash(purpose: DataKeyPurpose, storedHash: string, data: string): boolean {
    const expected = Buffer.from(storedHash, 'hex');
    let matched = false;
    // Every key is tried, so the time does not say which one matched.
    for (const key of this.keysOf(purpose)) {
      const actual = createHmac('sha256', key).update(data).digest();
      if (expected.length === actual.length && timingSafeEqual(expected, actual)) matched = true;
    }
    return matched;
  }

  private keysOf(purpose: DataKeyPurpose): Buffer[] {
    const keys = this.keys.get(purpose);
    if (!keys) throw new Error(`Unknown data key purpose: ${purpose}`);
    return keys;
  }
}

function hmacHex(key: Buffer, data: string): string {
  return createHmac('sha256', key).update(data).digest('hex');
}
