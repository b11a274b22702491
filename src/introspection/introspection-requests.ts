import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppException } from '../common/app-exception.js';
import { rateLimited } from '../common/rate-limited.js';
import { ClientAuthentication, ClientAuthenticationError, type ClientEndpoint } from '../oidc/index.js';

/** A compact JWS of the service is far smaller; anything longer is not one of its tokens. */
const MAX_TOKEN_LENGTH = 8192;

/**
 * What an introspection request must carry, checked in this order: client credentials (HTTP
 * Basic or `client_secret_post`, 401), the client's own per-minute budget
 * (INTROSPECT_RATE_PER_MINUTE, 429), then `token` from the form or JSON body (400). The event
 * stream and the permission names authenticate their callers the same way.
 */
@Injectable()
export class IntrospectionRequests {
  constructor(private readonly clients: ClientAuthentication) {}

  async accept(request: FastifyRequest): Promise<string> {
    await this.authenticate(request, 'introspect');
    const token = (request.body as Record<string, unknown> | undefined)?.token;
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'token', message: 'token must be a string of 1 to 8192 characters' },
      ]);
    }
    return token;
  }

  /** The calling service's id from its client credentials, else 401 (or 429 past a budget). */
  async authenticate(request: FastifyRequest, endpoint: ClientEndpoint = 'events'): Promise<string> {
    try {
      return await this.clients.authenticate(request, endpoint);
    } catch (error) {
      if (!(error instanceof ClientAuthenticationError)) throw error;
      if (error.reason === 'blocked') {
        throw rateLimited(
          'Too many failed client authentications from this address. Try again later.',
          error.retryAfterSeconds,
        );
      }
      if (error.reason === 'limited') {
        throw rateLimited(
          `Too many ${endpoint === 'introspect' ? 'introspection requests' : 'requests'} for this client. Try again later.`,
          error.retryAfterSeconds,
        );
      }
      throw new AppException('UNAUTHENTICATED', 'Client authentication failed.', undefined, {
        'WWW-Authenticate': `Basic realm="${endpoint === 'introspect' ? 'introspect' : 'auth'}", charset="UTF-8"`,
      });
    }
  }
}
