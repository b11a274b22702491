import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { CodePurpose } from '../../src/one-time-codes/code-purposes.js';
import { CodeDigest } from '../../src/one-time-codes/code-digest.js';
import { DataKeyRing } from '../../src/infra/keys/index.js';
import { OneTimeCodesRepository, type CodeKey } from '../../src/one-time-codes/one-time-codes.repository.js';
import { OneTimeCodes, type CodeCheck } from '../../src/one-time-codes/one-time-codes.service.js';
import { createTestConfig } from '../support/test-config.js';
import { insertUser, useMediumDatabase } from './medium-database.js';

/** What one code of a purpose is bound to, and the key it is found by. */
interface Subject {
  userId: string;
  recipient: string | null;
  binding: string;
  reference?: string;
  key: CodeKey;
}

/** A new account and a code's subject for `purpose`, as each flow binds its codes. */
async function subjectFor(db: Parameters<typeof insertUser>[0], purpose: CodePurpose): Promise<Subject> {
  const mobile = `+1415${String(Math.floor(Math.random() * 10_000_000)).padStart(7, '0')}`;
  const userId = await insertUser(db, { mobile });
  const email = `code-${randomUUID()}@example.com`;
  const id = randomUUID();
  switch (purpose) {
    case 'sms_sign_in':
      return { userId, recipient: mobile, binding: mobile, key: { recipient: mobile } };
    case 'email_sign_in':
      return { userId, recipient: email, binding: email, key: { recipient: email } };
    case 'second_factor':
      return { userId, recipient: mobile, binding: id, reference: id, key: { reference: id } };
    case 'reauthentication':
      return { userId, recipient: mobile, binding: randomUUID(), key: { userId } };
    case 'mobile_change':
      return { userId, recipient: mobile, binding: id, reference: id, key: { reference: id } };
  }
}

const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(code.length, '0');
const PURPOSES: CodePurpose[] = ['sms_sign_in', 'second_factor', 'email_sign_in', 'reauthentication', 'mobile_change'];

describe('one-time codes on a real database, for every purpose', () => {
  const fixture = useMediumDatabase();
  const config = createTestConfig();
  let codes: OneTimeCodes;
  beforeAll(() => {
    codes = new OneTimeCodes(new OneTimeCodesRepository(), new CodeDigest(new DataKeyRing(config)), config);
  });

  const issue = (purpose: CodePurpose, subject: Subject) =>
    fixture.db.transaction((manager) =>
      codes.issue(manager, purpose, {
        recipient: subject.recipient,
        userId: subject.userId,
        binding: subject.binding,
        reference: subject.reference,
        clientIp: '203.0.113.7',
      }),
    );
  /** One answer, as a flow gives it: the row locked, judged and recorded in one transaction. */
  const answer = (purpose: CodePurpose, subject: Subject, code: string): Promise<CodeCheck> =>
    fixture.db.transaction(async (manager: EntityManager) =>
      codes.answer(manager, await codes.lockLatest(manager, purpose, subject.key), subject.binding, code),
    );
  const refusal = (check: CodeCheck) => (check.ok ? null : { code: check.error.code, details: check.error.details });

  describe.each(PURPOSES)('%s', (purpose) => {
    it('takes 3 wrong answers (OTP_MAX_ATTEMPTS), then refuses even the right code', async () => {
      const subject = await subjectFor(fixture.db, purpose);
      const code = await issue(purpose, subject);
      for (const remaining of [2, 1, 0]) {
        expect(refusal(await answer(purpose, subject, wrong(code)))).toEqual({
          code: 'INVALID_OTP',
          details: [{ attempts_remaining: remaining }],
        });
      }
      expect(refusal(await answer(purpose, subject, code))).toMatchObject({ code: 'OTP_ATTEMPTS_EXCEEDED' });
    });

    it('is used once: the right code signs in, and a second answer with it is OTP_EXPIRED', async () => {
      const subject = await subjectFor(fixture.db, purpose);
      const code = await issue(purpose, subject);
      expect((await answer(purpose, subject, code)).ok).toBe(true);
      expect(refusal(await answer(purpose, subject, code))).toMatchObject({ code: 'OTP_EXPIRED' });
    });

    it('refuses an expired code with OTP_EXPIRED, and counts no attempt', async () => {
      const subject = await subjectFor(fixture.db, purpose);
      const code = await issue(purpose, subject);
      await fixture.db.query(
        `UPDATE one_time_codes SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND purpose = $2`,
        [subject.userId, purpose],
      );
      expect(refusal(await answer(purpose, subject, code))).toMatchObject({ code: 'OTP_EXPIRED' });
      const [row]: { attempts: number }[] = await fixture.db.query(
        `SELECT attempts FROM one_time_codes WHERE user_id = $1 AND purpose = $2`,
        [subject.userId, purpose],
      );
      expect(row!.attempts).toBe(0);
    });

    it('keeps one live code: a new one ends the last, whose code then matches nothing', async () => {
      const subject = await subjectFor(fixture.db, purpose);
      const first = await issue(purpose, subject);
      // A second-factor challenge and a mobile change get a new reference with each code.
      const next = subject.reference ? { ...subject, reference: randomUUID() } : subject;
      const second = await issue(purpose, { ...next, binding: subject.binding });
      const [{ live }]: { live: number }[] = await fixture.db.query(
        `SELECT count(*)::int AS live FROM one_time_codes WHERE user_id = $1 AND purpose = $2 AND ended_at IS NULL`,
        [subject.userId, purpose],
      );
      expect(live).toBe(1);
      if (first !== second) expect(refusal(await answer(purpose, subject, first))).not.toBeNull();
    });

    it('of 12 answers at once, the right one among them, judges at most 3 and lets at most one through', async () => {
      const subject = await subjectFor(fixture.db, purpose);
      const code = await issue(purpose, subject);
      const attempts = Array.from({ length: 12 }, (_, i) =>
        i === 11 ? code : String((Number(code) + i + 1) % 1_000_000).padStart(code.length, '0'),
      );
      const results = await Promise.all(attempts.map((attempt) => answer(purpose, subject, attempt)));
      const successes = results.filter((result) => result.ok).length;
      const judged = results.filter((result) => result.ok || refusal(result)?.code === 'INVALID_OTP').length;
      expect(successes).toBeLessThanOrEqual(1);
      expect(judged).toBeLessThanOrEqual(3);
      const [row]: { attempts: number }[] = await fixture.db.query(
        `SELECT attempts FROM one_time_codes WHERE user_id = $1 AND purpose = $2`,
        [subject.userId, purpose],
      );
      expect(row!.attempts).toBeLessThanOrEqual(3);
    });

    it('matches no code of another purpose with the same binding', async () => {
      const subject = await subjectFor(fixture.db, purpose);
      const code = await issue(purpose, subject);
      const other = PURPOSES.find((candidate) => candidate !== purpose)!;
      const [stored]: { codeHash: string }[] = await fixture.db.query(
        `SELECT code_hash AS "codeHash" FROM one_time_codes WHERE user_id = $1 AND purpose = $2`,
        [subject.userId, purpose],
      );
      expect(new CodeDigest(new DataKeyRing(config)).matches(stored!.codeHash, other, subject.binding, code)).toBe(
        false,
      );
      expect(new CodeDigest(new DataKeyRing(config)).matches(stored!.codeHash, purpose, subject.binding, code)).toBe(
        true,
      );
    });
  });

  describe.each(['sms_sign_in', 'email_sign_in'] as const)('%s, asked again', (purpose) => {
    it("starts the new code with the last one's wrong answers: asking again buys no guesses", async () => {
      const subject = await subjectFor(fixture.db, purpose);
      const first = await issue(purpose, subject);
      await answer(purpose, subject, wrong(first));
      await answer(purpose, subject, wrong(first));
      const second = await issue(purpose, subject);
      expect(refusal(await answer(purpose, subject, wrong(second)))).toEqual({
        code: 'INVALID_OTP',
        details: [{ attempts_remaining: 0 }],
      });
    });
  });

  it('takes 5 wrong second-factor answers when OTP_MAX_ATTEMPTS is 5', async () => {
    const five = createTestConfig({ OTP_MAX_ATTEMPTS: '5' });
    const lenient = new OneTimeCodes(new OneTimeCodesRepository(), new CodeDigest(new DataKeyRing(five)), five);
    const subject = await subjectFor(fixture.db, 'second_factor');
    const code = await fixture.db.transaction((manager) =>
      lenient.issue(manager, 'second_factor', { ...subject, clientIp: null }),
    );
    const give = (attempt: string) =>
      fixture.db.transaction(async (manager) =>
        lenient.answer(
          manager,
          await lenient.lockLatest(manager, 'second_factor', subject.key),
          subject.binding,
          attempt,
        ),
      );
    for (const remaining of [4, 3, 2, 1, 0]) {
      expect(refusal(await give(wrong(code)))).toEqual({
        code: 'INVALID_OTP',
        details: [{ attempts_remaining: remaining }],
      });
    }
    expect(refusal(await give(code))).toMatchObject({ code: 'OTP_ATTEMPTS_EXCEEDED' });
  });
});
