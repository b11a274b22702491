import { SetMetadata } from '@nestjs/common';
import type { AuthUser } from './auth-user.js';

export const FRESH_AUTH_KEY = 'auth:freshAuth';
export const SECOND_FACTOR_KEY = 'auth:secondFactor';

/** The default of `@RequireFreshAuth()` when the module options give none: five minutes. */
export const DEFAULT_REAUTH_MAX_AGE_SECONDS = 300;

/** A route's freshness requirement: `maxAgeSeconds` absent means the module's default. */
export interface FreshAuthRequirement {
  maxAgeSeconds?: number;
}

/**
 * The caller must have proved presence (signed in, or re-authenticated) within `maxAgeSeconds`
 * (default: the module's `reauthMaxAgeSeconds`, else 300), as the token's `auth_time` says; an
 * older proof is 403 `REAUTHENTICATION_REQUIRED`. For actions a stolen access token must not
 * reach: changing how the account signs in or is recovered.
 */
export const RequireFreshAuth = (maxAgeSeconds?: number) => {
  if (maxAgeSeconds !== undefined && (!Number.isInteger(maxAgeSeconds) || maxAgeSeconds < 0)) {
    throw new Error('RequireFreshAuth: maxAgeSeconds must be a whole number of seconds, 0 or more.');
  }
  return SetMetadata<string, FreshAuthRequirement>(FRESH_AUTH_KEY, { maxAgeSeconds });
};

/**
 * The caller's session must have used two factors (`amr` holds `mfa`, or `otp`, `sms` or `hwk`
 * beside the first factor); else 403 `SECOND_FACTOR_REQUIRED`.
 */
export const RequireSecondFactor = () => SetMetadata<string, boolean>(SECOND_FACTOR_KEY, true);

const SECOND_FACTORS = new Set(['otp', 'sms', 'hwk']);

/** Whether an `amr` (RFC 8176) records two factors: `mfa`, or a second factor after the first. */
export function hasSecondFactor(amr: readonly string[]): boolean {
  if (amr.includes('mfa')) return true;
  return amr.slice(1).some((method) => SECOND_FACTORS.has(method));
}

/** Whether the caller proved presence within `maxAgeSeconds` of `nowMs`; no `auth_time` is never fresh. */
export function isFresh(user: Pick<AuthUser, 'authTime'>, maxAgeSeconds: number, nowMs = Date.now()): boolean {
  return user.authTime !== undefined && nowMs / 1000 - user.authTime <= maxAgeSeconds;
}
