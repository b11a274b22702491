import type { EntityManager } from 'typeorm';
import { rateLimited } from '../../common/rate-limited.js';

const HOUR_MS = 3_600_000;

/**
 * Every code sent to a mobile (a sign-in code, a second-factor code or a mobile-change code) is
 * taken under this transaction-scoped advisory lock, so the cooldown and the hourly cap cannot be raced.
 */
export async function lockMobileForSending(manager: EntityManager, mobile: string): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`otp:mobile:${mobile}`]);
}

/**
 * Every SMS code of the last hour matching a number ($1) or a client address ($2): the codes of
 * otp_codes (sign-in and second factor) and those of mobile changes, which live with the change
 * request. `asked` marks the codes anyone can ask for (send-otp, a mobile change): they are under
 * the cooldown and the per-address cap; second-factor codes need the password first and spend
 * only the number's budget.
 */
const SENT_CODES = `
  SELECT mobile, client_ip, created_at, purpose = 'login' AS asked
    FROM otp_codes WHERE created_at > now() - interval '1 hour' AND (mobile = $1 OR client_ip = $2)
  UNION ALL
  SELECT new_value, client_ip, created_at, true
    FROM account_change_requests WHERE kind = 'mobile' AND created_at > now() - interval '1 hour' AND (new_value = $1 OR client_ip = $2)`;

/**
 * OTP_HOURLY_CAP per mobile, over the codes of every purpose: second-factor SMS and mobile-change
 * codes spend the same budget as send-otp, so no flow can be used to pump SMS to a number.
 */
export async function assertMobileHourlyCap(manager: EntityManager, mobile: string, hourlyCap: number): Promise<void> {
  const [stats]: { sent: number; first: Date | null }[] = await manager.query(
    `SELECT count(*)::int AS sent, min(created_at) AS first FROM (${SENT_CODES}) AS sent WHERE mobile = $1`,
    [mobile, null],
  );
  if (stats.sent >= hourlyCap) {
    throw rateLimited(
      'Too many codes for this mobile; try again later.',
      (new Date(stats.first!).getTime() + HOUR_MS - Date.now()) / 1000,
    );
  }
}

/**
 * The limits of a code someone asks for (send-otp, or a mobile change, which the contract puts
 * under "the same cooldown and caps"): OTP_RESEND_SECONDS per number, OTP_HOURLY_CAP per number
 * and per client address, both flows counted together. Call under lockMobileForSending.
 */
export async function assertCodeRequestAllowed(
  manager: EntityManager,
  mobile: string,
  address: string | null | undefined,
  limits: { resendSeconds: number; hourlyCap: number },
): Promise<void> {
  const [stats] = await manager.query(
    `SELECT max(created_at) FILTER (WHERE mobile = $1 AND asked) AS last_for_mobile,
            count(*) FILTER (WHERE client_ip = $2 AND asked)::int AS hour_for_ip,
            min(created_at) FILTER (WHERE client_ip = $2 AND asked) AS first_for_ip
       FROM (${SENT_CODES}) AS sent`,
    [mobile, address ?? null],
  );
  const now = Date.now();
  if (stats.last_for_mobile && limits.resendSeconds > 0) {
    const wait = new Date(stats.last_for_mobile).getTime() + limits.resendSeconds * 1000 - now;
    if (wait > 0) throw rateLimited('Wait before asking for another code.', wait / 1000);
  }
  await assertMobileHourlyCap(manager, mobile, limits.hourlyCap);
  if (address && stats.hour_for_ip >= limits.hourlyCap) {
    throw rateLimited(
      'Too many codes requested; try again later.',
      (new Date(stats.first_for_ip).getTime() + HOUR_MS - now) / 1000,
    );
  }
}
