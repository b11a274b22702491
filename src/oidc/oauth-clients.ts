import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ClientAuthentication, ClientAuthenticationError, type ClientEndpoint } from './client-authentication.js';
import { OAuthError } from './oauth-error.js';

/**
 * The shared client authentication, answered as RFC 6749 §5.2 says: 401 `invalid_client` with
 * `WWW-Authenticate: Basic`, or 429 with `Retry-After` when the address or the client is over
 * its budget.
 */
@Injectable()
export class OAuthClients {
  constructor(private readonly clients: ClientAuthentication) {}

  async authenticate(request: FastifyRequest, endpoint: Extract<ClientEndpoint, 'token' | 'revoke'>): Promise<string> {
    try {
      return await this.clients.authenticate(request, endpoint);
    } catch (error) {
      if (!(error instanceof ClientAuthenticationError)) throw error;
      if (error.reason === 'invalid') {
        throw new OAuthError(401, 'invalid_client', 'Client authentication failed.', {
          'WWW-Authenticate': `Basic realm="${endpoint}", charset="UTF-8"`,
        });
      }
      throw new OAuthError(
        429,
        'temporarily_unavailable',
        error.reason === 'blocked'
          ? 'Too many failed client authentications from this address. Try again later.'
          : 'Too many requests for this client. Try again later.',
        { 'Retry-After': String(Math.max(1, Math.ceil(error.retryAfterSeconds))) },
      );
    }
  }
}

/** A string parameter of the form or JSON body, or undefined; anything but a string is a bad request. */
export function parameter(request: FastifyRequest, name: string, maxLength = 8192): string | undefined {
  const value = ((request.body ?? {}) as Record<string, unknown>)[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > maxLength) {
    throw new OAuthError(400, 'invalid_request', `${name} must be a string of at most ${maxLength} characters.`);
  }
  return value;
}
