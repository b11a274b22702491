import type { EntityManager } from 'typeorm';
import { AppException } from '../common/app-exception.js';
import { countWrongAnswer, markCodeUsed, type OtpCodeRow } from './otp-codes.repository.js';
import { MAX_OTP_ATTEMPTS, OtpCodes } from './otp-codes.js';

export type OtpCheckResult = { ok: true; row: OtpCodeRow } | { ok: false; error: AppException };

/**
 * Checks a code against its row, which the caller has locked (`FOR UPDATE`) in `manager`'s
 * transaction, and records the outcome there: a wrong code counts an attempt, the third one burns
 * the code, a right one uses it. The caller commits, then throws the error if there is one, so
 * the count survives the refusal.
 */
export function checkOtp(
  manager: EntityManager,
  codes: OtpCodes,
  row: OtpCodeRow | null,
  binding: string,
  code: string,
): Promise<OtpCheckResult> {
  // A code for a mobile without an account was never sent: it can match nothing, yet it counts
  // attempts like any other, so a wrong guess reads the same whether the mobile is known or not.
  return judgeAnswer(
    manager,
    row,
    async (live) => live.userId !== null && codes.matches(live.codeHash, live.purpose, binding, code),
    'request a new one',
  );
}

/**
 * The rules every answer to a stored code or challenge follows, whatever `judge` compares: a
 * burned, ended or expired row refuses before anything is judged; a right answer uses the row; a
 * wrong one counts an attempt, and the third burns the row. `then` says what to do once burned.
 */
export async function judgeAnswer(
  manager: EntityManager,
  row: OtpCodeRow | null,
  judge: (row: OtpCodeRow) => Promise<boolean>,
  then: 'request a new one' | 'sign in again',
): Promise<OtpCheckResult> {
  if (!row) return { ok: false, error: new AppException('INVALID_OTP', 'The code is wrong.') };
  if (row.endReason === 'burned' || row.attempts >= MAX_OTP_ATTEMPTS) return { ok: false, error: attemptsExceeded() };
  if (row.endedAt) return { ok: false, error: expired('The code was already used or replaced.') };
  if (row.expiresAt.getTime() <= Date.now()) return { ok: false, error: expired('The code has expired.') };
  if (await judge(row)) {
    await markCodeUsed(manager, row.id);
    return { ok: true, row };
  }
  const attempts = row.attempts + 1;
  const burned = attempts >= MAX_OTP_ATTEMPTS;
  await countWrongAnswer(manager, row.id, attempts, burned);
  return {
    ok: false,
    error: new AppException(
      'INVALID_OTP',
      burned ? `The code is wrong, and no attempts remain: ${then}.` : 'The code is wrong.',
      [{ attempts_remaining: MAX_OTP_ATTEMPTS - attempts }],
    ),
  };
}

export function attemptsExceeded(): AppException {
  return new AppException('OTP_ATTEMPTS_EXCEEDED', 'Too many wrong codes: request a new code or sign in again.');
}

export function expired(message: string): AppException {
  return new AppException('OTP_EXPIRED', message);
}
