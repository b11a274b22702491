import { Inject, Injectable } from '@nestjs/common';
import { getStorageToken, type ThrottlerStorage } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { clientAddressKey } from '../common/client-address.js';
import { AppException } from '../common/app-exception.js';
import { rateLimited } from '../common/rate-limited.js';
import { AppConfig } from '../config/app-config.js';
import { ServiceClientsService } from './service-clients.service.js';

const WINDOW_MS = 60_000;
/** A compact JWS of the service is far smaller; anything longer is not one of its tokens. */
const MAX_TOKEN_LENGTH = 8192;

/**
 * What an introspection request must carry, checked in this order: client credentials (HTTP
 * Basic, 401), the client's own per-minute budget (INTROSPECT_RATE_PER_MINUTE, 429, counted
 * where the other limits are, so it is shared across instances with Redis), then `token` from the
 * form or JSON body (400).
 */
@Injectable()
export class IntrospectionRequests {
  /**
   * Addresses that used up their failed-authentication budget, until when. Failures are counted in
   * the shared rate-limit storage; the verdict is kept here so that a blocked address is refused
   * BEFORE its secret is judged (a 200 for the right guess would end the block's purpose). Another
   * instance learns of the block at that address's next failure there: at most one more guess per
   * instance and window.
   */
  private readonly blockedUntil = new LRUCache<string, number>({ max: 10_000 });

  constructor(
    private readonly clients: ServiceClientsService,
    @Inject(getStorageToken()) private readonly counters: ThrottlerStorage,
    private readonly config: AppConfig,
  ) {}

  async accept(request: FastifyRequest): Promise<string> {
    const clientId = await this.authenticate(request);
    const limit = this.config.introspection.ratePerMinute;
    const record = await this.counters.increment(`introspect:${clientId}`, WINDOW_MS, limit, WINDOW_MS, 'introspect');
    if (record.isBlocked || record.totalHits > limit) {
      throw rateLimited(
        'Too many introspection requests for this client. Try again later.',
        record.timeToBlockExpire || record.timeToExpire,
      );
    }
    const token = (request.body as Record<string, unknown> | undefined)?.token;
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'token', message: 'token must be a string of 1 to 8192 characters' },
      ]);
    }
    return token;
  }

  /**
   * The calling service's id from its client credentials (HTTP Basic), else 401; an address that
   * failed too often is refused (429) before its secret is judged.
   */
  async authenticate(request: FastifyRequest): Promise<string> {
    const address = clientAddressKey(request.ip) ?? 'unknown';
    const blockedUntil = this.blockedUntil.get(address) ?? 0;
    if (blockedUntil > Date.now()) {
      throw rateLimited(
        'Too many failed client authentications from this address. Try again later.',
        (blockedUntil - Date.now()) / 1000,
      );
    }
    const credentials = basicCredentials(request.headers.authorization);
    const clientId = credentials && (await this.clients.authenticate(credentials.id, credentials.secret));
    if (!clientId) {
      await this.countFailure(address);
      throw new AppException('UNAUTHENTICATED', 'Client authentication failed.', undefined, {
        'WWW-Authenticate': 'Basic realm="introspect", charset="UTF-8"',
      });
    }
    return clientId;
  }

  /** RATE_LIMIT_PER_MINUTE failed client authentications per client address and minute. */
  private async countFailure(address: string): Promise<void> {
    const limit = this.config.limits.ratePerMinute;
    const record = await this.counters.increment(
      `introspect-auth:${address}`,
      WINDOW_MS,
      limit,
      WINDOW_MS,
      'introspect-auth',
    );
    if (record.isBlocked || record.totalHits >= limit) {
      this.blockedUntil.set(address, Date.now() + Math.max(1, record.timeToBlockExpire || record.timeToExpire) * 1000);
    }
  }
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
