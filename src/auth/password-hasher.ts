import { Injectable } from '@nestjs/common';
import { hash, verify, type Options } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import { AppConfig } from '../config/app-config.js';

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated builds cannot inline). */
const ARGON2ID = 2;

/**
 * Argon2id hashing with a random salt per hash. @node-rs/argon2 runs on the libuv thread pool,
 * so hashing never blocks the event loop.
 */
@Injectable()
export class PasswordHasher {
  private readonly options: Options;
  private dummyHash?: Promise<string>;

  constructor(config: AppConfig) {
    this.options = {
      algorithm: ARGON2ID,
      memoryCost: config.passwordHashing.memoryKib,
      timeCost: config.passwordHashing.iterations,
      parallelism: config.passwordHashing.parallelism,
    };
  }

  /** The PHC string, e.g. `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`. */
  hash(password: string): Promise<string> {
    return hash(password, this.options);
  }

  /** Constant-time comparison happens inside argon2's verify. */
  verify(passwordHash: string, password: string): Promise<boolean> {
    return verify(passwordHash, password);
  }

  /**
   * Spends the same work as a real verification, for accounts that do not exist, so that the
   * response time does not tell a caller which emails or mobiles are registered.
   */
  async verifyAgainstDummy(password: string): Promise<false> {
    this.dummyHash ??= this.hash(randomBytes(32).toString('base64url'));
    await verify(await this.dummyHash, password);
    return false;
  }
}
