import { Injectable, type ExecutionContext } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail, type ThrottlerModuleOptions } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { clientAddressKey } from '../common/client-address.js';
import { normalizeEmail, normalizeMobile } from '../common/normalize.js';
import { rateLimited } from '../common/rate-limited.js';
import { RateLimits } from '../common/rate-limits.js';
import type { AppConfig } from '../config/app-config.js';

const WINDOW_MS = 60_000;
const AUTH_ROUTES = '/api/auth/';

/**
 * The account or mobile a request to an auth endpoint names, normalised as the service stores
 * it (so `Ann@Example.com ` and `ann@example.com` share one budget), or undefined. Read before
 * validation: anything that is not a string names nothing and is refused by validation later.
 */
export function accountOf(body: unknown, phoneRegion?: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { email, mobile } = body as Record<string, unknown>;
  if (typeof email === 'string' && email.trim() !== '') return `email:${normalizeEmail(email)}`;
  if (typeof mobile !== 'string') return undefined;
  // The number as stored (`00CC` as `+CC`, a national number in DEFAULT_PHONE_REGION), then its
  // digits only: `+44 7911 123456`, `0044 7911 123456` and `447911123456` are one target.
  const digits = (normalizeMobile(mobile, phoneRegion) ?? mobile).replace(/\D/g, '');
  return digits ? `mobile:${digits}` : undefined;
}

const requestOf = (context: ExecutionContext) => context.switchToHttp().getRequest<FastifyRequest>();

/** The route's pattern (`/api/auth/login`), not the raw URL, so a query string changes nothing. */
const isAuthRoute = (context: ExecutionContext) =>
  requestOf(context).routeOptions?.url?.startsWith(AUTH_ROUTES) === true;

export function rateLimitOptions(config: AppConfig): ThrottlerModuleOptions {
  const { ratePerMinute, globalRatePerMinute } = config.limits;
  return {
    // Only the refusal says when to come back (Retry-After); no X-RateLimit-* on every response.
    setHeaders: false,
    throttlers: [
      { name: RateLimits.Address, ttl: WINDOW_MS, limit: globalRatePerMinute },
      {
        name: RateLimits.AuthAddress,
        ttl: WINDOW_MS,
        limit: ratePerMinute,
        skipIf: (context) => !isAuthRoute(context),
      },
      {
        name: RateLimits.AuthAccount,
        ttl: WINDOW_MS,
        limit: ratePerMinute,
        skipIf: (context) =>
          !isAuthRoute(context) || accountOf(requestOf(context).body, config.defaultPhoneRegion) === undefined,
        getTracker: (request) => accountOf(request.body, config.defaultPhoneRegion)!,
      },
    ],
  };
}

/**
 * The throttler guard with the contract's refusal: 429 `RATE_LIMITED` with `Retry-After` in
 * seconds. The client address is `request.ip`, which Fastify takes from the socket unless
 * TRUST_PROXY says how many proxy hops to believe in `X-Forwarded-For`, counted per client
 * (clientAddressKey). Keys are per endpoint
 * (controller and handler) and per limit name.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  /** Per client as clientAddressKey counts it: an IPv6 /64 is one client, `::ffff:1.2.3.4` is 1.2.3.4. */
  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    const ip = (request as unknown as FastifyRequest).ip;
    return clientAddressKey(ip) ?? ip;
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw rateLimited('Too many requests. Try again later.', detail.timeToBlockExpire);
  }
}
