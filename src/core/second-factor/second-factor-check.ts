import type { EntityManager } from 'typeorm';
import { AppException } from '../../common/app-exception.js';
import { countWrongAnswer, markCodeUsed } from '../otp/otp-codes.repository.js';
import { attemptsExceeded, expired, type OtpCheckResult } from '../otp/otp-check.js';
import type { OtpCode } from '../../database/entities/otp-code.entity.js';
import { MAX_OTP_ATTEMPTS } from '../otp/otp-codes.js';

/**
 * The bookkeeping of a two-factor challenge answered by something other than its SMS code (an
 * authenticator-app code, a recovery code), with the same rules as `checkOtp`: the challenge's
 * row, locked by the caller, holds the attempts; three wrong answers burn the temp token; a right
 * one uses it. `judge` decides the answer in the caller's transaction.
 */
export async function checkChallengeAnswer(
  manager: EntityManager,
  row: OtpCode | null,
  judge: () => Promise<boolean>,
): Promise<OtpCheckResult> {
  if (!row || row.userId === null) return { ok: false, error: new AppException('INVALID_OTP', 'The code is wrong.') };
  if (row.endReason === 'burned' || row.attempts >= MAX_OTP_ATTEMPTS) return { ok: false, error: attemptsExceeded() };
  if (row.endedAt) return { ok: false, error: expired('The code was already used or replaced.') };
  if (row.expiresAt.getTime() <= Date.now()) return { ok: false, error: expired('The code has expired.') };
  if (await judge()) {
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
      burned ? 'The code is wrong, and no attempts remain: sign in again.' : 'The code is wrong.',
      [{ attempts_remaining: MAX_OTP_ATTEMPTS - attempts }],
    ),
  };
}
