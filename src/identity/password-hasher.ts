import { Injectable } from '@nestjs/common';
import { hash, verify, type Options } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import pLimit, { type LimitFunction } from 'p-limit';
import { normalizePassword } from '../common/normalize.js';
import { AppConfig } from '../config/app-config.js';

/** A verification's outcome; `rehash` when the password matched a hash of its raw, non-NFKC form. */
export interface PasswordCheck {
  valid: boolean;
  rehash?: string;
}

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated builds cannot inline). */
const ARGON2ID = 2;

/**
 * Argon2id hashing with a random salt per hash. @node-rs/argon2 runs on the libuv thread pool,
 * so hashing never blocks the event loop.
 *
 * At most ARGON2_CONCURRENCY hashes run at once (one per core by default); the rest wait their
 * turn. More at once would not finish sooner: they would share the same cores, each holding its
 * ARGON2_MEMORY_KIB, and take CPU from the event loop and the database beside them.
 */
@Injectable()
export class PasswordHasher {
  private readonly options: Options;
  private readonly limit: LimitFunction;
  private dummyHash?: Promise<string>;

  constructor(config: AppConfig) {
    this.limit = pLimit(config.passwordHashing.concurrency);
    this.options = {
      algorithm: ARGON2ID,
      memoryCost: config.passwordHashing.memoryKib,
      timeCost: config.passwordHashing.iterations,
      parallelism: config.passwordHashing.parallelism,
    };
  }

  /**
   * The PHC string, e.g. `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`, of the password's NFKC
   * form: typed composed or decomposed, in full-width or not, it is one password.
   */
  hash(password: string): Promise<string> {
    const normalized = normalizePassword(password);
    return this.limit(() => hash(normalized, this.options));
  }

  /**
   * A hash of a random password nobody knows: what a voided password becomes, so that it stops
   * working while sign-in still spends the same work on it (a reset sets a new one).
   */
  unusableHash(): Promise<string> {
    return this.hash(randomBytes(32).toString('base64url'));
  }

  /** Constant-time comparison happens inside argon2's verify. */
  async verify(passwordHash: string, password: string): Promise<boolean> {
    return (await this.check(passwordHash, password)).valid;
  }

  /**
   * Verifies the NFKC form, then, for hashes stored before passwords were normalised, the raw
   * form; a match of the raw form comes with a new hash of the normalised form to store.
   */
  async check(passwordHash: string, password: string): Promise<PasswordCheck> {
    const normalized = normalizePassword(password);
    if (await this.verifyOne(passwordHash, normalized)) return { valid: true };
    if (normalized === password || !(await this.verifyOne(passwordHash, password))) return { valid: false };
    return { valid: true, rehash: await this.hash(password) };
  }

  /** Hashes running now, and those waiting for their turn. */
  get load(): { active: number; waiting: number } {
    return { active: this.limit.activeCount, waiting: this.limit.pendingCount };
  }

  private verifyOne(passwordHash: string, password: string): Promise<boolean> {
    return this.limit(() => verify(passwordHash, password));
  }

  /**
   * Spends the same work as a real verification, for accounts that do not exist, so that the
   * response time does not tell a caller which emails or mobiles are registered.
   */
  async verifyAgainstDummy(password: string): Promise<false> {
    this.dummyHash ??= this.hash(randomBytes(32).toString('base64url'));
    // As many verifications as `check` makes for a wrong password of this spelling.
    await this.check(await this.dummyHash, password);
    return false;
  }
}
