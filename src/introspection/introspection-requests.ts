import { Inject, Injectable } from '@nestjs/common';
import { getStorageToken, type ThrottlerStorage } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
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
  constructor(
    private readonly clients: ServiceClientsService,
    @Inject(getStorageToken()) private readonly counters: ThrottlerStorage,
    private readonly config: AppConfig,
  ) {}

  async accept(request: FastifyRequest): Promise<string> {
    const credentials = basicCredentials(request.headers.authorization);
    const clientId = credentials && (await this.clients.authenticate(credentials.id, credentials.secret));
    if (!clientId) {
      throw new AppException('UNAUTHENTICATED', 'Client authentication failed.', undefined, {
        'WWW-Authenticate': 'Basic realm="introspect", charset="UTF-8"',
      });
    }
    const limit = this.config.introspection.ratePerMinute;
    const record = await this.counters.increment(`introspect:${clientId}`, WINDOW_MS, limit, WINDOW_MS, 'introspect');
    if (record.isBlocked || record.totalHits > limit) {
      throw rateLimited('Too many introspection requests for this client. Try again later.', (record.timeToBlockExpire || record.timeToExpire));
    }
    const token = (request.body as Record<string, unknown> | undefined)?.token;
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'token', message: 'token must be a string of 1 to 8192 characters' },
      ]);
    }
    return token;
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
