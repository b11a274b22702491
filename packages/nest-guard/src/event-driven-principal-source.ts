import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { VerifiedAccessToken } from './access-token.js';
import { checkedMaxEntries, type PrincipalRecord } from './auth-guard.options.js';
import { authServiceUnavailable } from './library-errors.js';
import { PrincipalSource } from './principal-source.base.js';
import type { EventStreamHealth, SecurityEventSubscriber } from './security-event-subscriber.js';
import type { VerifiedSecurityEvent } from './security-event-token.js';

type Loader = (token: string, claims: VerifiedAccessToken | null) => Promise<PrincipalRecord | null>;

/** How long a revoked session or user is remembered when no token has told the tokens' lifetime yet. */
const DEFAULT_TOKEN_LIFETIME_MS = 60 * 60_000;

export interface EventDrivenOptions {
  /** One call to the service for a caller not known yet (introspection). */
  load: Loader;
  /** What answers while the stream lags: introspection behind `cacheTtlMs`. */
  fallback: PrincipalSource;
  subscriber: SecurityEventSubscriber;
  maxEventLagMs: number;
  failClosed: boolean;
  maxEntries: number;
  /** Told every event too, so it drops the verified tokens a revocation concerns. */
  verifiedTokens?: { forget(event: VerifiedSecurityEvent): void };
}

interface CachedCaller {
  record: PrincipalRecord | null;
  userId: string;
  sessionId: string;
}

export interface RevocationHealth {
  revocation: 'events';
  stream: EventStreamHealth;
  /** Whether requests are answered from the events (true) or by the fallback now. */
  fresh: boolean;
  cachedCallers: number;
  revokedSessions: number;
  revokedUsers: number;
}

/**
 * Callers known from one introspection each, kept until an event says otherwise: a guarded
 * request in steady state makes no call to the service. `session-revoked` and `credential-change`
 * are remembered until the tokens they concern have expired (a token of a revoked session, or
 * issued before a user's `not_before`, is refused without a call); `assignment-change`,
 * `role-change` and `reset` drop what they make stale. While the stream is down longer than
 * `maxEventLagMs`, the fallback (introspection with `cacheTtlMs`) answers, or 503 under `failClosed`.
 */
export class EventDrivenPrincipalSource extends PrincipalSource {
  private readonly logger = new Logger('AuthGuardModule');
  private readonly callers: LRUCache<string, CachedCaller>;
  private readonly revokedSessions: LRUCache<string, true>;
  private readonly notBefore: LRUCache<string, number>;
  private readonly inFlight = new Map<string, Promise<PrincipalRecord | null>>();
  /** Moves with every event: a load that started before one is used once but not kept. */
  private epoch = 0;
  private tokenLifetimeMs = DEFAULT_TOKEN_LIFETIME_MS;
  private wasFresh = false;

  constructor(private readonly options: EventDrivenOptions) {
    super();
    this.callers = new LRUCache({ max: checkedMaxEntries(options.maxEntries) });
    this.revokedSessions = new LRUCache({ max: options.maxEntries * 4 });
    this.notBefore = new LRUCache({ max: options.maxEntries });
  }

  override start(): void {
    this.options.subscriber.start();
  }

  override stop(): void {
    this.options.subscriber.stop();
  }

  health(): RevocationHealth {
    return {
      revocation: 'events',
      stream: this.options.subscriber.health(),
      fresh: this.options.subscriber.isFresh(this.options.maxEventLagMs),
      cachedCallers: this.callers.size,
      revokedSessions: this.revokedSessions.size,
      revokedUsers: this.notBefore.size,
    };
  }

  /** The same answer as `load`'s where the events tell it: a revoked caller, or one known and unexpired. */
  override known(_token: string, claims: VerifiedAccessToken): PrincipalRecord | null | undefined {
    if (this.isRevoked(claims)) return null;
    this.noteLifetime(claims);
    if (!this.fresh()) return undefined;
    return this.cached(claims)?.record;
  }

  async load(token: string, claims: VerifiedAccessToken | null): Promise<PrincipalRecord | null> {
    if (claims) {
      if (this.isRevoked(claims)) return null;
      this.noteLifetime(claims);
    }
    if (!claims || !this.fresh()) {
      if (claims && this.options.failClosed) throw authServiceUnavailable();
      return this.options.fallback.load(token, claims);
    }
    const key = claims.digest;
    const cached = this.cached(claims);
    if (cached) return cached.record;
    let loading = this.inFlight.get(key);
    if (!loading) {
      const epoch = this.epoch;
      loading = this.options.load(token, claims).then((record) => {
        const ttl = claims.expiresAt - Date.now();
        if (epoch === this.epoch && ttl > 0)
          this.callers.set(key, { record, userId: claims.userId, sessionId: claims.sessionId }, { ttl });
        return record;
      });
      this.inFlight.set(key, loading);
      void loading.then(
        () => this.inFlight.delete(key),
        () => this.inFlight.delete(key),
      );
    }
    const record = await loading;
    // An event may have arrived during the call.
    return this.isRevoked(claims) ? null : record;
  }

  /** Applies one verified event of the stream. */
  apply(event: VerifiedSecurityEvent): void {
    this.epoch++;
    this.options.verifiedTokens?.forget(event);
    const ttl = this.tokenLifetimeMs;
    switch (event.name) {
      case 'session-revoked':
        this.revokedSessions.set(event.sid, true, { ttl });
        this.forgetCallers((caller) => caller.sessionId === event.sid);
        break;
      case 'credential-change':
        this.notBefore.set(event.sub, Math.max(event.notBefore, this.notBefore.get(event.sub) ?? 0), { ttl });
        this.forgetCallers((caller) => caller.userId === event.sub);
        break;
      case 'assignment-change':
        this.forgetCallers((caller) => caller.userId === event.sub);
        break;
      case 'role-change':
        this.forgetCallers((caller) => caller.record?.roles.includes(event.role) ?? false);
        break;
      case 'reset':
        this.logger.warn('The security event stream could not replay what was missed: every caller is looked up again');
        this.callers.clear();
        break;
      case 'keys-rotated':
        break;
    }
  }

  private forgetCallers(match: (caller: CachedCaller) => boolean): void {
    const gone: string[] = [];
    for (const [key, caller] of this.callers.entries()) if (match(caller)) gone.push(key);
    for (const key of gone) this.callers.delete(key);
  }

  /** Revocations are remembered as long as the longest token lifetime seen (see `apply`). */
  private noteLifetime(claims: VerifiedAccessToken): void {
    this.tokenLifetimeMs = Math.max(this.tokenLifetimeMs, claims.expiresAt - claims.issuedAt * 1000);
  }

  /**
   * The caller looked up for this token, kept until the token's `exp` and not a moment past it;
   * keyed by the token's digest (the verifier's), so the cache does not hold bearer tokens.
   */
  private cached(claims: VerifiedAccessToken): CachedCaller | undefined {
    const cached = this.callers.get(claims.digest);
    return cached && Date.now() < claims.expiresAt ? cached : undefined;
  }

  private isRevoked(claims: VerifiedAccessToken): boolean {
    if (this.revokedSessions.get(claims.sessionId)) return true;
    const notBefore = this.notBefore.get(claims.userId);
    return notBefore !== undefined && claims.issuedAt < notBefore;
  }

  private fresh(): boolean {
    const fresh = this.options.subscriber.isFresh(this.options.maxEventLagMs);
    if (fresh !== this.wasFresh) {
      this.wasFresh = fresh;
      if (fresh) this.logger.log('Revocation by events: requests are answered without a call to the auth service');
      else
        this.logger.warn(
          this.options.failClosed
            ? 'The security event stream lags: requests are refused (503) until it is back (failClosed)'
            : 'The security event stream lags: callers are introspected (cacheTtlMs) until it is back',
        );
    }
    return fresh;
  }
}
