import { Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { PasswordHasher } from '../identity/index.js';
import { DataKeyRing } from '../infra/keys/index.js';
import { SecondFactorsRepository } from './second-factors.repository.js';

export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32 letters: no I, L, O or U to misread. 10 of them carry 50 bits. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** Ten codes to show once, and the hashes to store in their place. */
export interface FreshRecoveryCodes {
  codes: string[];
  hashes: string[];
}

/**
 * Single-use recovery codes, shown once. The holder keeps them for years, so they are hashed as
 * passwords are (Argon2id, a salt each) under no key: no key rotation can void them (contract,
 * "Keys at rest"). Codes made before that were stored as an HMAC-SHA-256 under a key of the data
 * key ring; they still verify under any key of the ring until they are used or made anew.
 */
@Injectable()
export class RecoveryCodesService {
  constructor(
    private readonly repository: SecondFactorsRepository,
    private readonly hasher: PasswordHasher,
    private readonly keys: DataKeyRing,
  ) {}

  /** New codes and their hashes; Argon2 runs here, before any transaction, since it is slow. */
  async prepare(): Promise<FreshRecoveryCodes> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
      const raw = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
      return `${raw.slice(0, 5)}-${raw.slice(5)}`;
    });
    const hashes = await Promise.all(codes.map((code) => this.hasher.hash(normalise(code))));
    return { codes, hashes };
  }

  /** The prepared codes replace any earlier ones, in the caller's transaction; the plain codes are never stored. */
  async store(manager: EntityManager, userId: string, fresh: FreshRecoveryCodes): Promise<string[]> {
    await this.repository.replaceRecoveryCodes(manager, userId, fresh.hashes);
    return fresh.codes;
  }

  /**
   * Uses the code if it is one of the user's unused codes. The one conditional UPDATE of the
   * matching row keeps a code single-use when two requests carry it at once.
   */
  async use(manager: EntityManager, userId: string, code: string): Promise<boolean> {
    const normalised = normalise(code);
    const match = await this.findUnused(manager, userId, normalised);
    return match !== null && this.repository.useRecoveryCodeById(manager, userId, match);
  }

  /** Accounts whose unused codes still depend on a key of the ring (made before Argon2id). */
  countKeyedCodeHolders(): Promise<number> {
    return this.repository.countKeyedRecoveryCodeHolders();
  }

  private async findUnused(manager: EntityManager, userId: string, normalised: string): Promise<string | null> {
    for (const row of await this.repository.findUnusedRecoveryCodes(manager, userId)) {
      const matches = row.codeHash.startsWith('$argon2')
        ? await this.hasher.verify(row.codeHash, normalised)
        : this.keys.matchesKeyedHash('legacy-recovery-code-hash', row.codeHash, `${userId}\n${normalised}`);
      if (matches) return row.id;
    }
    return null;
  }
}

/** Case, spaces and dashes do not matter: people copy codes by hand. */
function normalise(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}
