import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
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
  /** Client keys of the addresses seen lately (parsing an address is a tenth of a short request). */
  private readonly clients = new Map<string, string>();

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
  ) {
    super(options, storage, new RouteMetadata(reflector));
  }

  /** Per client as clientAddressKey counts it: an IPv6 /64 is one client, `::ffff:1.2.3.4` is 1.2.3.4. */
  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    const ip = (request as unknown as FastifyRequest).ip;
    let client = this.clients.get(ip);
    if (client === undefined) {
      if (this.clients.size >= MAX_REMEMBERED_CLIENTS) this.clients.clear();
      client = clientAddressKey(ip) ?? ip;
      this.clients.set(ip, client);
    }
    return client;
  }

  /**
   * The counter's name: the endpoint (controller and handler), the limit's name and the client
   * or account. Plain text, in this process's memory; the Redis storage stores its digest.
   */
  protected override generateKey(context: ExecutionContext, tracker: string, name: string): string {
    return `${context.getClass().name}-${context.getHandler().name}-${name}-${tracker}`;
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw rateLimited('Too many requests. Try again later.', detail.timeToBlockExpire);
  }
}

const MAX_REMEMBERED_CLIENTS = 10_000;

/**
 * The throttler's reads of a route's limits (`@SkipThrottle`, `@Throttle` and the like, six for
 * each named limit on every request) answered once per route: decorators set metadata when a
 * class is defined, never while the service runs.
 */
class RouteMetadata extends Reflector {
  private readonly answers = new Map<unknown, WeakMap<object, Map<object, unknown>>>();

  constructor(private readonly reflector: Reflector) {
    super();
  }

  override getAllAndOverride<T = unknown>(metadataKey: unknown, targets: (object | undefined)[]): T {
    const [handler, classRef] = targets;
    if (targets.length !== 2 || !handler || !classRef) return this.reflector.getAllAndOverride(metadataKey, targets as never);
    let byHandler = this.answers.get(metadataKey);
    if (!byHandler) this.answers.set(metadataKey, (byHandler = new WeakMap()));
    let byClass = byHandler.get(handler);
    if (!byClass) byHandler.set(handler, (byClass = new Map()));
    if (!byClass.has(classRef)) byClass.set(classRef, this.reflector.getAllAndOverride(metadataKey, targets as never));
    return byClass.get(classRef) as T;
  }
}
