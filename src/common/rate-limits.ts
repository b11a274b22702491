import { SkipThrottle } from '@nestjs/throttler';

/** The named limits; each counts on its own key, so one never spends another's budget. */
export const RateLimits = {
  /** Every route, per client address: generous, against floods. */
  Address: 'address',
  /** Each `/api/auth` endpoint, per client address. */
  AuthAddress: 'auth-address',
  /** Each `/api/auth` endpoint, per account or mobile named in the body, whatever the address. */
  AuthAccount: 'auth-account',
} as const;

/** For routes that must answer whatever the load, such as health checks for a load balancer. */
export const SkipRateLimits = () =>
  SkipThrottle(Object.fromEntries(Object.values(RateLimits).map((name) => [name, true])));
