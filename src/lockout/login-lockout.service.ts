import { Injectable, Logger } from '@nestjs/common';
import { sha256Hex } from '../common/token-hash.js';
import { rateLimited } from '../common/rate-limited.js';
import { AppConfig } from '../config/app-config.js';
import type { AppException } from '../common/app-exception.js';
import type { UserWithPassword } from '../identity/index.js';
import { lockoutDecision } from './lockout-decision.js';
import { LoginFailuresRepository, type AttemptCount } from './login-failures.repository.js';
import { IntervalGate } from '../common/interval-gate.js';

/** Stale rows (no attempt for LOCKOUT_SECONDS, no live lock) are swept at most this often per process. */
const SWEEP_INTERVAL_MS = 10 * 60_000;

/** Whose failures a login counts: the account when it exists, else the identifier it named. */
export function lockoutSubject(userId: string | null, identifier: { email?: string; mobile?: string }): string {
  if (userId) return `user:${userId}`;
  // Identifiers of nobody's account are stored hashed: typos of real addresses are personal data.
  const [kind, value] =
    identifier.email !== undefined ? ['email', identifier.email] : ['mobile', identifier.mobile ?? ''];
  return `${kind}:${sha256Hex(value)}`;
}

/**
 * The account lockout: after LOCKOUT_THRESHOLD consecutive failed password logins of one account
 * (by email or mobile alike), its password logins are refused with 429 for LOCKOUT_SECONDS, a
 * correct password included; a success starts the count over.
 *
 * Each attempt is counted *before* its password is checked, in one atomic statement, and a
 * success removes the count. So parallel guesses cannot outrun the lockout: of N attempts in
 * flight at once, at most LOCKOUT_THRESHOLD have their password checked. Identifiers that name
 * no account are counted the same way, so the lockout does not reveal which accounts exist.
 */
@Injectable()
export class LoginLockout {
  private readonly logger = new Logger('LoginLockout');
  private readonly sweeps = new IntervalGate(SWEEP_INTERVAL_MS, 'after an interval');

  constructor(
    private readonly failures: LoginFailuresRepository,
    private readonly config: AppConfig,
  ) {}

  /** Counts one attempt for the subject, or refuses it (429) while the subject is locked out. */
  async begin(subject: string): Promise<void> {
    await this.sweepIfDue();
    const refusal = await this.judge(subject, await this.count(subject));
    if (refusal) throw refusal;
  }

  /**
   * A password sign-in's start, in one statement: the account the email or mobile names (null
   * for none) and the attempt counted for it, with the refusal (429) when the lockout holds. The
   * subject of an unknown identifier is its digest (`lockoutSubject`).
   */
  async beginSignIn(identifier: { email?: string; mobile?: string }): Promise<{
    account: UserWithPassword | null;
    subject: string;
    refusal?: AppException;
  }> {
    await this.sweepIfDue();
    const [column, value] =
      identifier.email !== undefined
        ? (['email', identifier.email] as const)
        : (['mobile', identifier.mobile!] as const);
    const row = await this.failures.countSignIn(
      column,
      value,
      lockoutSubject(null, identifier),
      this.config.limits.lockoutSeconds,
    );
    const subject = lockoutSubject(row.account?.id ?? null, identifier);
    return { account: row.account, subject, refusal: await this.judge(subject, row) };
  }

  /** The refusal an attempt counted as `row` gets, if any (see `lockoutDecision`). */
  private async judge(subject: string, row: AttemptCount): Promise<AppException | undefined> {
    const decision = lockoutDecision(row, this.config.limits);
    if (decision.kind === 'check') return undefined;
    // Earlier attempts still in flight have used up the threshold: this one is not checked, and
    // the lock starts now (a success among those in flight lifts it again).
    if (decision.kind === 'lock-now') await this.failed(subject);
    return lockedOut(decision.retryAfter);
  }

  /** Refuses (429) while the subject is locked out, without counting an attempt. */
  async assertNotLocked(subject: string): Promise<void> {
    const retryAfter = await this.failures.secondsLocked(subject);
    if (retryAfter !== null) throw lockedOut(Math.min(retryAfter, this.config.limits.lockoutSeconds));
  }

  /**
   * A failure judged elsewhere than the password check (a wrong second-factor code) counts like a
   * wrong password, on the same counter; answers whether this failure locked the subject out.
   */
  async countFailure(subject: string): Promise<boolean> {
    await this.count(subject);
    return this.failed(subject);
  }

  /** The attempt failed: lock the subject out once its count has reached the threshold. */
  async failed(subject: string): Promise<boolean> {
    const { lockoutThreshold, lockoutSeconds } = this.config.limits;
    const locked = await this.failures.lockIfReached(subject, lockoutThreshold, lockoutSeconds);
    // The subject is a user id or a digest, never an email or a mobile.
    if (locked)
      this.logger.warn(
        `Password logins of ${subject} locked for ${lockoutSeconds} s after ${lockoutThreshold} failed attempts`,
      );
    return locked;
  }

  /**
   * An attempt that turned out not to be a failure (a right password whose second factor is
   * pending, a right re-authentication) takes back its count, leaving earlier failures and any
   * lock as they are.
   */
  async giveBack(subject: string): Promise<void> {
    await this.failures.uncount(subject);
  }

  /** The password was right (or was reset): the count starts over. */
  async succeeded(subject: string): Promise<void> {
    await this.failures.clear(subject);
  }

  /** Counts one attempt in one atomic upsert; a count older than LOCKOUT_SECONDS starts over. */
  private count(subject: string): Promise<AttemptCount> {
    return this.failures.count(subject, this.config.limits.lockoutSeconds);
  }

  private async sweepIfDue(): Promise<void> {
    if (!this.sweeps.due()) return;
    await this.failures.deleteStale(this.config.limits.lockoutSeconds);
  }
}

function lockedOut(retryAfterSeconds: number) {
  return rateLimited('Too many failed sign-in attempts. Try again later.', retryAfterSeconds);
}
