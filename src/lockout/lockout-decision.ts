/** What the lockout makes of one counted attempt. */
export type LockoutDecision =
  /** Under the threshold: the attempt goes on to its password check. */
  | { kind: 'check' }
  /** A lock holds: refused, for the seconds it has left (never more than the lockout lasts). */
  | { kind: 'locked'; retryAfter: number }
  /**
   * Over the threshold with no lock yet: earlier attempts still in flight used the threshold up.
   * Refused without a check, and the subject is locked now for the whole lockout.
   */
  | { kind: 'lock-now'; retryAfter: number };

/** The count of one attempt, as the counting statement answers it. */
export interface CountedAttempt {
  failures: number;
  /** Seconds left of a lock that holds, or null when none does. */
  retryAfter: number | null;
}

/** The lockout's settings: LOCKOUT_THRESHOLD and LOCKOUT_SECONDS. */
export interface LockoutLimits {
  lockoutThreshold: number;
  lockoutSeconds: number;
}

/**
 * The lockout's decision for an attempt counted as `attempt`. Pure: the count comes from one
 * atomic statement (LoginFailuresRepository), so this only reads it.
 *
 * The attempt that reaches the threshold is still checked (its failure locks the subject); only
 * attempts beyond it are refused. A lock's remainder is capped at LOCKOUT_SECONDS: the statement's
 * now() is when it started, and it may have waited for the row while a parallel attempt set the
 * lock from a later clock.
 */
export function lockoutDecision(attempt: CountedAttempt, limits: LockoutLimits): LockoutDecision {
  if (attempt.retryAfter !== null)
    return { kind: 'locked', retryAfter: Math.min(attempt.retryAfter, limits.lockoutSeconds) };
  if (attempt.failures > limits.lockoutThreshold) return { kind: 'lock-now', retryAfter: limits.lockoutSeconds };
  return { kind: 'check' };
}
