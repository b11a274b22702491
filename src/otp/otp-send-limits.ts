import type { EntityManager } from 'typeorm';
import { rateLimited } from '../common/rate-limited.js';

const HOUR_MS = 3_600_000;

/**
 * Every code sent to a mobile (a sign-in code or a second-factor code) is taken under this
 * transaction-scoped advisory lock, so the cooldown and the hourly cap cannot be raced.
 */
export async function lockMobileForSending(manager: EntityManager, mobile: string): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`otp:mobile:${mobile}`]);
}

/**
 * OTP_HOURLY_CAP per mobile, over the codes of both purposes: second-factor SMS spend the same
 * budget as send-otp, so neither flow can be used to pump SMS to a number.
 */
export async function assertMobileHourlyCap(manager: EntityManager, mobile: string, hourlyCap: number): Promise<void> {
  const [stats]: { sent: number; first: Date | null }[] = await manager.query(
    `SELECT count(*)::int AS sent, min(created_at) AS first
       FROM otp_codes WHERE mobile = $1 AND created_at > now() - interval '1 hour'`,
    [mobile],
  );
  if (stats.sent >= hourlyCap) {
    throw rateLimited('Too many codes for this mobile; try again later.', (new Date(stats.first!).getTime() + HOUR_MS - Date.now()) / 1000);
  }
}
