import type { EntityManager } from 'typeorm';
import { AppException } from '../common/app-exception.js';
import { judgeAnswer, type OtpCheckResult } from './otp-check.js';
import type { OtpCodeRow } from './otp-codes.repository.js';

/**
 * The bookkeeping of a two-factor challenge answered by something other than its SMS code (an
 * authenticator-app code, a recovery code), with the same rules as `checkOtp`: the challenge's
 * row, locked by the caller, holds the attempts; three wrong answers burn the temp token; a right
 * one uses it. `judge` decides the answer in the caller's transaction.
 */
export function checkChallengeAnswer(
  manager: EntityManager,
  row: OtpCodeRow | null,
  judge: () => Promise<boolean>,
): Promise<OtpCheckResult> {
  // A challenge always belongs to an account; a row without one is answered as a wrong code.
  if (row && row.userId === null) {
    return Promise.resolve({ ok: false, error: new AppException('INVALID_OTP', 'The code is wrong.') });
  }
  return judgeAnswer(manager, row, judge, 'sign in again');
}
