import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { clientAddressKey } from '../common/client-address.js';
import { AppConfig } from '../config/app-config.js';
import { RateLimitStorage } from '../infra/redis/rate-limit-storage.js';
import { ClientsService } from '../clients/index.js';

const WINDOW_MS = 60_000;

/** The endpoints that authenticate clients, each with its own per-client budget. */
export type ClientEndpoint = 'introspect' | 'token' | 'revoke' | 'events';

/**
 * Why a client was not let in: `invalid` (401: unknown client, wrong secret, no or two methods),
 * `blocked` (429: this address failed too often), `limited` (429: the client's own budget).
 */
export class ClientAuthenticationError extends Error {
  constructor(
    readonly reason: 'invalid' | 'blocked' | 'limited',
    /** Seconds until a retry may succeed, for `Retry-After`. */
    readonly retryAfterSeconds = 0,
  ) {
    super(`client authentication failed: ${reason}`);
  }
}

/**
 * Client authentication, one mechanism for every endpoint a service calls (introspection, token,
 * revocation, events): HTTP Basic or `client_secret_post` (RFC 6749 §2.3.1; exactly one of them),
 * checked against SERVICE_CLIENTS and the stored clients, then the client's per-minute budget of
 * that endpoint, counted where the other limits are (shared across instances with Redis).
 */
@Injectable()
export class ClientAuthentication {
  /**
   * Addresses that used up their failed-authentication budget, until when. Failures are counted in
   * the shared rate-limit storage; the verdict is kept here so that a blocked address is refused
   * BEFORE its secret is judged (a 200 for the right guess would end the block's purpose). Another
   * instance learns of the block at that address's next failure there: at most one more guess per
   * instance and window.
   */
  private readonly blockedUntil = new LRUCache<string, number>({ max: 10_000 });

  constructor(
    private readonly clients: ClientsService,
    private readonly counters: RateLimitStorage,
    private readonly config: AppConfig,
  ) {}

  /** The authenticated client's id; throws ClientAuthenticationError otherwise. */
  async authenticate(request: FastifyRequest, endpoint: ClientEndpoint): Promise<string> {
    const address = clientAddressKey(request.ip) ?? 'unknown';
    const blockedUntil = this.blockedUntil.get(address) ?? 0;
    if (blockedUntil > Date.now()) {
      throw new ClientAuthenticationError('blocked', (blockedUntil - Date.now()) / 1000);
    }
    const credentials = presentedCredentials(request);
    const clientId = credentials && (await this.clients.authenticate(credentials.id, credentials.secret));
    if (!clientId) {
      await this.countFailure(address);
      throw new ClientAuthenticationError('invalid');
    }
    const limit =
      endpoint === 'introspect'
        ? this.config.introspection.ratePerMinute
        : this.config.introspection.tokenRatePerMinute;
    const record = await this.counters.increment(`${endpoint}:${clientId}`, WINDOW_MS, limit, WINDOW_MS);
    if (record.isBlocked || record.totalHits > limit) {
      throw new ClientAuthenticationError('limited', record.timeToBlockExpire || record.timeToExpire);
    }
    return clientId;
  }

  /** RATE_LIMIT_PER_MINUTE failed client authentications per client address and minute. */
  private async countFailure(address: string): Promise<void> {
    const limit = this.config.limits.ratePerMinute;
    const record = await this.counters.increment(`introspect-auth:${address}`, WINDOW_MS, limit, WINDOW_MS);
    if (record.isBlocked || record.totalHits >= limit) {
      this.blockedUntil.set(address, Date.now() + Math.max(1, record.timeToBlockExpire || record.timeToExpire) * 1000);
    }
  }
}

/**
 * The client's credentials from HTTP Basic or from the body's `client_id` and `client_secret`
 * (`client_secret_post`); null when neither, both (RFC 6749 §2.3: one method per request) or
 * malformed.
 */
export function presentedCredentials(request: FastifyRequest): { id: string; secret: string } | null {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const posted = body.client_id !== undefined || body.client_secret !== undefined;
  const header = request.headers.authorization;
  if (header !== undefined) {
    if (posted) return null;
    return basicCredentials(header);
  }
  if (typeof body.client_id !== 'string' || typeof body.client_secret !== 'string') return null;
  return { id: body.client_id, secret: body.client_secret };
}

/** `Basic base64(id:secret)`, each part form-encoded first (RFC 6749 §2.3.1); null when malformed. */
export function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  const match = /^Basic +([A-Za-z0-9+/]+=*)$/i.exec(header?.trim() ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator <= 0) return null;
  try {
    const plus = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
    return { id: plus(decoded.slice(0, separator)), secret: plus(decoded.slice(separator + 1)) };
  } catch {
    return null;
  }
}
