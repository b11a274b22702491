import { Injectable, type ExecutionContext } from '@nestjs/common';
import {
  ThrottlerGuard,
  type ThrottlerGenerateKeyFunction,
  type ThrottlerGetTrackerFunction,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerOptions,
} from '@nestjs/throttler';
import {
  THROTTLER_BLOCK_DURATION,
  THROTTLER_KEY_GENERATOR,
  THROTTLER_LIMIT,
  THROTTLER_SKIP,
  THROTTLER_TRACKER,
  THROTTLER_TTL,
} from '@nestjs/throttler/dist/throttler.constants.js';
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
  /** Each route's limits, read once: decorators set metadata when a class is defined, never later. */
  private readonly routes = new WeakMap<object, Map<object, RouteLimit[]>>();

  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    // The request path below leaves out what this service never configures, rather than ignore it.
    const options = this.options as {
      throttlers: ThrottlerOptions[];
      ignoreUserAgents?: unknown;
      setHeaders?: boolean;
    };
    if (options.setHeaders !== false || options.ignoreUserAgents || this.throttlers.some((t) => t.ignoreUserAgents))
      throw new Error('RateLimitGuard: setHeaders must be false and ignoreUserAgents unset.');
  }

  /**
   * The throttler's own check (every named limit the route does not skip, in order; the first
   * one past its limit refuses), with the route's limits read once instead of six metadata reads
   * per limit on every request.
   */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context) as unknown as Record<string, unknown>;
    for (const limit of this.limitsOf(context.getHandler(), context.getClass())) {
      if (limit.skipIf?.(context)) continue;
      const ttl = typeof limit.ttl === 'number' ? limit.ttl : await limit.ttl(context);
      const max = typeof limit.limit === 'number' ? limit.limit : await limit.limit(context);
      const blockDuration =
        typeof limit.blockDuration === 'function' ? await limit.blockDuration(context) : limit.blockDuration;
      const tracker = await limit.getTracker(request, context);
      const key = limit.generateKey(context, tracker, limit.name);
      const record = await this.storageService.increment(key, ttl, max, blockDuration ?? ttl, limit.name);
      if (record.isBlocked) await this.throwThrottlingException(context, { limit: max, ttl, key, tracker, ...record });
    }
    return true;
  }

  private limitsOf(handler: object, classRef: object): RouteLimit[] {
    let byClass = this.routes.get(handler);
    if (!byClass) this.routes.set(handler, (byClass = new Map()));
    let limits = byClass.get(classRef);
    if (!limits) byClass.set(classRef, (limits = this.readLimits(handler, classRef)));
    return limits;
  }

  /** What `ThrottlerGuard.canActivate` reads for a route: the same keys, the same precedence. */
  private readLimits(handler: object, classRef: object): RouteLimit[] {
    const targets = [handler, classRef] as never;
    const read = <T>(key: string, name: string) => this.reflector.getAllAndOverride<T>(key + name, targets);
    return this.throttlers
      .filter((throttler) => !read<boolean>(THROTTLER_SKIP, throttler.name!))
      .map((throttler) => {
        const name = throttler.name!;
        return {
          name,
          skipIf: throttler.skipIf ?? this.commonOptions.skipIf,
          limit: read<Resolvable<number>>(THROTTLER_LIMIT, name) ?? throttler.limit,
          ttl: read<Resolvable<number>>(THROTTLER_TTL, name) ?? throttler.ttl,
          blockDuration: read<Resolvable<number>>(THROTTLER_BLOCK_DURATION, name) ?? throttler.blockDuration,
          getTracker:
            read<ThrottlerGetTrackerFunction>(THROTTLER_TRACKER, name) ??
            throttler.getTracker ??
            this.commonOptions.getTracker!,
          generateKey:
            read<ThrottlerGenerateKeyFunction>(THROTTLER_KEY_GENERATOR, name) ??
            throttler.generateKey ??
            this.commonOptions.generateKey!,
        };
      });
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

type Resolvable<T> = T | ((context: ExecutionContext) => T | Promise<T>);

/** One named limit as it applies to one route. */
interface RouteLimit {
  name: string;
  skipIf?: (context: ExecutionContext) => boolean;
  limit: Resolvable<number>;
  ttl: Resolvable<number>;
  blockDuration?: Resolvable<number>;
  getTracker: ThrottlerGetTrackerFunction;
  generateKey: ThrottlerGenerateKeyFunction;
}
