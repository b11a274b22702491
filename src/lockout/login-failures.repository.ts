import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { userWithPasswordSql, type UserWithPassword } from '../identity/index.js';
import { queryNamed } from '../infra/database/named-statements.js';

/**
 * A row of `login_failures`, the one shape the table's statements answer in: every column aliased
 * to its camelCase name (`locked_until AS "lockedUntil"`).
 */
export interface LoginFailureRow {
  subject: string;
  failures: number;
  lockedUntil: Date | null;
  lastAttemptAt: Date;
}

/** The count of one attempt: the subject's failures, and the seconds left of a lock that holds (else null). */
export type AttemptCount = Pick<LoginFailureRow, 'failures'> & { retryAfter: number | null };

/** Counts one attempt of `subject` (an SQL expression); `$2` is the window in seconds. */
function countAttemptSql(subject: string): string {
  return `INSERT INTO login_failures AS f (subject, failures, locked_until, last_attempt_at)
          SELECT ${subject}, 1, NULL, now()
          ON CONFLICT (subject) DO UPDATE SET
            failures = CASE
              WHEN f.locked_until > now() THEN f.failures
              WHEN f.locked_until IS NOT NULL OR f.last_attempt_at <= now() - make_interval(secs => $2) THEN 1
              ELSE f.failures + 1 END,
            locked_until = CASE WHEN f.locked_until > now() THEN f.locked_until END,
            last_attempt_at = CASE WHEN f.locked_until > now() THEN f.last_attempt_at ELSE now() END
          RETURNING failures, ceil(extract(epoch FROM locked_until - now()))::int AS "retryAfter"`;
}

/**
 * A condition that is always true and, evaluated once in a statement that runs as its own
 * transaction, lets that transaction's commit return before its write-ahead log is flushed
 * (`set_config(..., true)` is local to the transaction: the pooled connection's next statement
 * commits synchronously again). A condition of the statement's last step rather than a query of
 * its own, so that PostgreSQL cannot leave it out, and nothing is answered unless it ran.
 */
const COMMIT_WITHOUT_FLUSH = `set_config('synchronous_commit', 'off', true) = 'off'`;

/** Ends the count of the subject `$n` names: a statement of its own, or part of a sign-in's (the session's insert). */
export function clearFailuresStatement(subjectParam: string): string {
  return `DELETE FROM login_failures WHERE subject = ${subjectParam}`;
}

/** The `login_failures` table: one row of consecutive failed password logins per subject. */
@Injectable()
export class LoginFailuresRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Seconds left of the subject's lock, or null when it is not locked. */
  async secondsLocked(subject: string): Promise<number | null> {
    const [row]: { retryAfter: number }[] = await this.dataSource.query(
      `SELECT ceil(extract(epoch FROM locked_until - now()))::int AS "retryAfter"
         FROM login_failures WHERE subject = $1 AND locked_until > now()`,
      [subject],
    );
    return row ? row.retryAfter : null;
  }

  /**
   * Counts one attempt in one atomic upsert; a count older than `windowSeconds` starts over.
   * Answers the count and, while a lock holds, the seconds left of it.
   */
  async count(subject: string, windowSeconds: number): Promise<AttemptCount> {
    const [row]: AttemptCount[] = await this.dataSource.query(countAttemptSql('$1'), [subject, windowSeconds]);
    return row!;
  }

  /**
   * A sign-in's two first steps in one statement: reads the account `column` names (the accounts'
   * own lookup, from identity), and counts the attempt for that account (`user:<id>`), or for
   * `unknownSubject` when there is none.
   */
  async countSignIn(
    column: 'email' | 'mobile',
    value: string,
    unknownSubject: string,
    windowSeconds: number,
  ): Promise<AttemptCount & { account: UserWithPassword | null }> {
    // Every sign-in sends it: prepared once per connection (two variants, by email or by mobile).
    // Its commit does not wait for the write-ahead log to reach the disk (`synchronous_commit`
    // off for this statement's transaction only): every way a sign-in goes on from here commits
    // another write synchronously before anything is answered (the session, the failure's audit
    // event, the refusal's, the second factor's challenge), and that flush carries this count
    // with it. See decision 066.
    const [row] = await queryNamed<AttemptCount & { account: UserWithPassword | null }>(
      this.dataSource,
      `WITH account AS (${userWithPasswordSql(column)}),
            counted AS (${countAttemptSql(`coalesce((SELECT 'user:' || id FROM account), $3)`)})
       SELECT counted.failures, counted."retryAfter", (SELECT to_jsonb(account) FROM account) AS account FROM counted
        WHERE ${COMMIT_WITHOUT_FLUSH}`,
      [value, windowSeconds, unknownSubject],
    );
    return row!;
  }

  /** Locks the subject for `seconds` once its count has reached `threshold`; answers whether it did. */
  async lockIfReached(subject: string, threshold: number, seconds: number): Promise<boolean> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [, locked]: [unknown[], number] = await this.dataSource.query(
      `UPDATE login_failures SET locked_until = now() + make_interval(secs => $3)
        WHERE subject = $1 AND failures >= $2 AND (locked_until IS NULL OR locked_until <= now())`,
      [subject, threshold, seconds],
    );
    return locked > 0;
  }

  /** Takes one attempt back from the subject's count, unless a lock holds (its count then stays). */
  async uncount(subject: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE login_failures SET failures = failures - 1
        WHERE subject = $1 AND failures > 0 AND (locked_until IS NULL OR locked_until <= now())`,
      [subject],
    );
  }

  async clear(subject: string): Promise<void> {
    // The session's insert clears the count of a completed sign-in in its own statement.
    await this.dataSource.query(clearFailuresStatement('$1'), [subject]);
  }

  /** Removes rows with no attempt for `windowSeconds` and no live lock. */
  async deleteStale(windowSeconds: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM login_failures
        WHERE last_attempt_at <= now() - make_interval(secs => $1) AND (locked_until IS NULL OR locked_until <= now())`,
      [windowSeconds],
    );
  }
}
