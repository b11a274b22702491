import { AppException } from '../common/app-exception.js';

/** What every sign-in path reads of an account beside its credentials. */
export interface AccountStatus {
  disabledAt: Date | string | null;
  disabledUntil: Date | string | null;
}

/** The SQL columns of `AccountStatus`, for statements over `users` aliased `alias`. */
export function accountStatusColumns(alias: string): string {
  return `${alias}.disabled_at AS "disabledAt", ${alias}.disabled_until AS "disabledUntil"`;
}

/**
 * `isDisabled`'s rule as an SQL condition over `users` aliased `alias`: true while the account may
 * sign in (never disabled, or disabled until a moment that has passed, by the database's clock).
 */
export function maySignInSql(alias: string): string {
  return `(${alias}.disabled_at IS NULL OR (${alias}.disabled_until IS NOT NULL AND ${alias}.disabled_until <= now()))`;
}

/**
 * Whether the account is disabled now. A disabling with an end (`disabled_until`) ends by itself
 * when that moment has passed: compared with the clock at every check, so no job re-enables it.
 */
export function isDisabled(account: AccountStatus, now = Date.now()): boolean {
  if (account.disabledAt === null || account.disabledAt === undefined) return false;
  if (account.disabledUntil === null || account.disabledUntil === undefined) return true;
  return new Date(account.disabledUntil).getTime() > now;
}

/**
 * The one check of every sign-in path (password, SMS code, second factor, email code, refresh,
 * passkey): called once the first factor was right, so the answer tells only whoever proved it.
 */
export function assertMaySignIn(account: AccountStatus): void {
  if (isDisabled(account)) throw new AppException('ACCOUNT_DISABLED', 'This account is disabled.');
}
