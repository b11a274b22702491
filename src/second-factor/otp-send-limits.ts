import type { EntityManager } from 'typeorm';
import { rateLimited } from '../common/rate-limited.js';
import { askedCodesLastHour, codesSentToMobileLastHour } from './otp-codes.repository.js';

const HOUR_MS = 3_600_000;

/**
 * OTP_HOURLY_CAP per mobile, over the codes of every purpose: second-factor SMS and mobile-change
 * codes spend the same budget as send-otp, so no flow can be used to pump SMS to a number.
 */
export async function assertMobileHourlyCap(manager: EntityManager, mobile: string, hourlyCap: number): Promise<void> {
  const stats = await codesSentToMobileLastHour(manager, mobile);
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
 * and per client address, both flows counted together. Call under lockMobileForSending (otp-codes.repository.ts).
 */
export async function assertCodeRequestAllowed(
  manager: EntityManager,
  mobile: string,
  address: string | null | undefined,
  limits: { resendSeconds: number; hourlyCap: number },
): Promise<void> {
  const stats = await askedCodesLastHour(manager, mobile, address ?? null);
  const now = Date.now();
  if (stats.lastForMobile && limits.resendSeconds > 0) {
    const wait = new Date(stats.lastForMobile).getTime() + limits.resendSeconds * 1000 - now;
    if (wait > 0) throw rateLimited('Wait before asking for another code.', wait / 1000);
  }
  await assertMobileHourlyCap(manager, mobile, limits.hourlyCap);
  if (address && stats.hourForIp >= limits.hourlyCap) {
    throw rateLimited(
      'Too many codes requested; try again later.',
      (new Date(stats.firstForIp!).getTime() + HOUR_MS - now) / 1000,
    );
  }
}
