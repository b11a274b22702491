import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { buildAppConfig } from '../../src/config/app-config.js';
import { parseEnvironment } from '../../src/config/environment.js';
import { lockoutDecision } from '../../src/lockout/lockout-decision.js';
import { LoginFailuresRepository } from '../../src/lockout/login-failures.repository.js';
import { LoginLockout } from '../../src/lockout/login-lockout.service.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';
import { fileDatabase, testDataSource } from '../support/test-database.js';
import { insertUser, useMediumDatabase } from './medium-database.js';

const WINDOW = 900;
const limits = { lockoutThreshold: 5, lockoutSeconds: WINDOW };

describe('login failures on a real database', () => {
  const fixture = useMediumDatabase();
  let failures: LoginFailuresRepository;
  beforeAll(() => {
    failures = new LoginFailuresRepository(fixture.db);
  });

  const subject = () => `user:${randomUUID()}`;
  const row = async (s: string) => {
    const [found]: { failures: number; locked: boolean }[] = await fixture.db.query(
      `SELECT failures, locked_until IS NOT NULL AS locked FROM login_failures WHERE subject = $1`,
      [s],
    );
    return found ?? null;
  };
  /** Moves the subject's last attempt `seconds` into the past. */
  const age = (s: string, seconds: number) =>
    fixture.db.query(
      `UPDATE login_failures SET last_attempt_at = now() - make_interval(secs => $2) WHERE subject = $1`,
      [s, seconds],
    );
  const countTimes = async (s: string, times: number) => {
    for (let i = 0; i < times; i++) await failures.count(s, WINDOW);
  };

  describe('the window', () => {
    it('counts consecutive attempts one by one', async () => {
      const s = subject();
      expect(await failures.count(s, WINDOW)).toEqual({ failures: 1, retryAfter: null });
      expect(await failures.count(s, WINDOW)).toEqual({ failures: 2, retryAfter: null });
      expect(await failures.count(s, WINDOW)).toEqual({ failures: 3, retryAfter: null });
    });

    it('keeps counting an attempt made inside the window', async () => {
      const s = subject();
      await countTimes(s, 3);
      await age(s, WINDOW - 30);
      expect(await failures.count(s, WINDOW)).toEqual({ failures: 4, retryAfter: null });
    });

    it('starts over once the last attempt is older than the window', async () => {
      const s = subject();
      await countTimes(s, 4);
      await age(s, WINDOW + 1);
      expect(await failures.count(s, WINDOW)).toEqual({ failures: 1, retryAfter: null });
    });

    it('counts every attempt of a burst exactly once', async () => {
      const s = subject();
      const answers = await Promise.all(Array.from({ length: 12 }, () => failures.count(s, WINDOW)));
      expect(answers.map((answer) => answer.failures).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 12 }, (_, i) => i + 1),
      );
      expect(await row(s)).toEqual({ failures: 12, locked: false });
    });

    it('sweeps rows older than the window, and keeps recent ones and live locks', async () => {
      const [stale, recent, locked] = [subject(), subject(), subject()];
      for (const s of [stale, recent, locked]) await countTimes(s, 5);
      await failures.lockIfReached(locked, 5, WINDOW);
      await age(stale, WINDOW + 1);
      await age(locked, WINDOW + 1);
      await failures.deleteStale(WINDOW);
      expect(await row(stale)).toBeNull();
      expect(await row(recent)).toEqual({ failures: 5, locked: false });
      expect(await row(locked)).toEqual({ failures: 5, locked: true });
    });
  });

  describe('the threshold', () => {
    it('does not lock below it, locks once at it', async () => {
      const s = subject();
      await countTimes(s, 4);
      expect(await failures.lockIfReached(s, 5, WINDOW)).toBe(false);
      expect(await failures.secondsLocked(s)).toBeNull();
      await countTimes(s, 1);
      expect(await failures.lockIfReached(s, 5, WINDOW)).toBe(true);
      expect(await failures.lockIfReached(s, 5, WINDOW)).toBe(false);
      expect(await failures.secondsLocked(s)).toBe(WINDOW);
    });

    it('locks once when two failures at the threshold end together', async () => {
      const s = subject();
      await countTimes(s, 5);
      const locked = await Promise.all([failures.lockIfReached(s, 5, WINDOW), failures.lockIfReached(s, 5, WINDOW)]);
      expect(locked.filter(Boolean)).toHaveLength(1);
    });

    it('while locked, counts nothing and answers the seconds left; the decision refuses', async () => {
      const s = subject();
      await countTimes(s, 5);
      await failures.lockIfReached(s, 5, WINDOW);
      const counted = await failures.count(s, WINDOW);
      expect(counted.failures).toBe(5);
      expect(counted.retryAfter).toBeGreaterThanOrEqual(WINDOW - 1);
      expect(counted.retryAfter).toBeLessThanOrEqual(WINDOW);
      expect(lockoutDecision(counted, limits)).toEqual({ kind: 'locked', retryAfter: counted.retryAfter });
      expect(await row(s)).toEqual({ failures: 5, locked: true });
    });

    it('checks exactly the threshold of a parallel burst and refuses the rest unchecked', async () => {
      const s = subject();
      const answers = await Promise.all(Array.from({ length: 8 }, () => failures.count(s, WINDOW)));
      const decisions = answers.map((answer) => lockoutDecision(answer, limits).kind);
      expect(decisions.filter((kind) => kind === 'check')).toHaveLength(5);
      expect(decisions.filter((kind) => kind === 'lock-now')).toHaveLength(3);
    });

    it('starts a new count, unlocked, once the lock has ended', async () => {
      const s = subject();
      await countTimes(s, 5);
      await failures.lockIfReached(s, 5, WINDOW);
      await fixture.db.query(
        `UPDATE login_failures SET locked_until = now() - interval '1 second' WHERE subject = $1`,
        [s],
      );
      expect(await failures.secondsLocked(s)).toBeNull();
      expect(await failures.count(s, WINDOW)).toEqual({ failures: 1, retryAfter: null });
      expect(await row(s)).toEqual({ failures: 1, locked: false });
    });
  });

  describe('a success', () => {
    it('clears the count: the next attempt is the first', async () => {
      const s = subject();
      await countTimes(s, 4);
      await failures.clear(s);
      expect(await row(s)).toBeNull();
      expect(await failures.count(s, WINDOW)).toEqual({ failures: 1, retryAfter: null });
    });

    it('clears a lock too (a password reset)', async () => {
      const s = subject();
      await countTimes(s, 5);
      await failures.lockIfReached(s, 5, WINDOW);
      await failures.clear(s);
      expect(await failures.secondsLocked(s)).toBeNull();
    });

    it('an attempt given back leaves the earlier failures, but not under a lock', async () => {
      const s = subject();
      await countTimes(s, 3);
      await failures.uncount(s);
      expect(await row(s)).toEqual({ failures: 2, locked: false });

      const held = subject();
      await countTimes(held, 5);
      await failures.lockIfReached(held, 5, WINDOW);
      await failures.uncount(held);
      expect(await row(held)).toEqual({ failures: 5, locked: true });
    });

    it("leaves other subjects' counts alone", async () => {
      const [s, other] = [subject(), subject()];
      await countTimes(s, 2);
      await countTimes(other, 2);
      await failures.clear(s);
      expect(await row(other)).toEqual({ failures: 2, locked: false });
    });
  });

  describe("a sign-in's count, with the account's lookup in the same statement", () => {
    it('counts the attempt of a known email for its account, and reads the account with it', async () => {
      const userId = await insertUser(fixture.db);
      const [{ email }]: { email: string }[] = await fixture.db.query(`SELECT email FROM users WHERE id = $1`, [
        userId,
      ]);
      const first = await failures.countSignIn('email', email, `unknown:${randomUUID()}`, WINDOW);
      const second = await failures.countSignIn('email', email, `unknown:${randomUUID()}`, WINDOW);
      expect(first.account).toMatchObject({ id: userId, email, passwordHash: 'not-a-hash', hasTotp: false });
      expect([first.failures, second.failures]).toEqual([1, 2]);
      expect(await row(`user:${userId}`)).toEqual({ failures: 2, locked: false });
    });

    it('counts an unknown identifier under the subject it is given, and answers no account', async () => {
      const unknown = `unknown:${randomUUID()}`;
      const counted = await failures.countSignIn('mobile', '+14155550000', unknown, WINDOW);
      expect(counted.account).toBeNull();
      expect(await row(unknown)).toEqual({ failures: 1, locked: false });
    });

    /**
     * The count's commit does not wait for the log's flush (a synchronous write follows it on every
     * way a sign-in goes on), but only its own: one connection, so that the statements after it
     * would show a setting it left behind on the connection.
     */
    describe('its commit', () => {
      let single: DataSource;
      let onOne: LoginFailuresRepository;
      beforeAll(async () => {
        single = testDataSource((await fileDatabase()).url, 1);
        await single.initialize();
        onOne = new LoginFailuresRepository(single);
      });
      afterAll(async () => {
        if (single?.isInitialized) await single.destroy();
      });
      const synchronousCommit = async () =>
        ((await single.query(`SHOW synchronous_commit`)) as { synchronous_commit: string }[])[0]!.synchronous_commit;

      it('does not wait for the flush in the transaction the statement runs in', async () => {
        const before = await synchronousCommit();
        await single.query('BEGIN');
        try {
          await onOne.countSignIn('email', `nobody-${randomUUID()}@example.com`, `unknown:${randomUUID()}`, WINDOW);
          expect(await synchronousCommit()).toBe('off');
        } finally {
          await single.query('ROLLBACK');
        }
        expect(await synchronousCommit()).toBe(before);
      });

      it('leaves the connection committing as before once its own transaction has ended', async () => {
        const before = await synchronousCommit();
        const unknown = `unknown:${randomUUID()}`;
        await onOne.countSignIn('email', `nobody-${randomUUID()}@example.com`, unknown, WINDOW);
        expect(await synchronousCommit()).toBe(before);
        expect(await row(unknown)).toEqual({ failures: 1, locked: false });
      });
    });
  });

  describe('LoginLockout on the repository', () => {
    let lockout: LoginLockout;
    beforeAll(() => {
      const config = buildAppConfig(
        parseEnvironment({
          APP_ENV: 'test',
          JWT_SECRET: TEST_JWT_SECRET,
          LOCKOUT_THRESHOLD: '3',
          LOCKOUT_SECONDS: '600',
        }),
      );
      lockout = new LoginLockout(new LoginFailuresRepository(fixture.db), config);
    });

    const refusalOf = async (attempt: Promise<unknown>) => {
      const error = (await attempt.then(
        () => undefined,
        (thrown: unknown) => thrown,
      )) as { getStatus(): number; code: string; message: string; headers: Record<string, string> } | undefined;
      return error && { status: error.getStatus(), code: error.code, message: error.message, headers: error.headers };
    };

    it('lets the threshold of attempts through, locks on its failure, then refuses with 429', async () => {
      const s = subject();
      for (let i = 0; i < 3; i++) expect(await refusalOf(lockout.begin(s))).toBeUndefined();
      expect(await lockout.failed(s)).toBe(true);
      expect(await refusalOf(lockout.begin(s))).toEqual({
        status: 429,
        code: 'RATE_LIMITED',
        message: 'Too many failed sign-in attempts. Try again later.',
        headers: { 'Retry-After': '600' },
      });
      expect(await refusalOf(lockout.assertNotLocked(s))).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    });

    it('locks at once an attempt past the threshold that nobody locked yet', async () => {
      const s = subject();
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => refusalOf(lockout.begin(s))));
      expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(3);
      expect(outcomes.filter((outcome) => outcome?.status === 429)).toHaveLength(2);
      // The fifth attempt is counted only when it reaches the row before the fourth has locked
      // it; once the lock holds, a refused attempt leaves the count as it is.
      const after = await row(s);
      expect(after?.locked).toBe(true);
      expect([4, 5]).toContain(after?.failures);
    });

    it('a success starts the count over', async () => {
      const s = subject();
      await lockout.begin(s);
      await lockout.begin(s);
      await lockout.succeeded(s);
      expect(await row(s)).toBeNull();
    });
  });
});
