import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AuditLog } from '../audit/index.js';
import { ClientsService } from '../clients/index.js';
import { ClientTokensService, mayHoldServiceTokens } from './client-tokens.service.js';
import { SessionService } from '../sessions/index.js';
import { AppConfig } from '../config/app-config.js';
import { OAuthClients, parameter } from './oauth-clients.js';
import { OAuthError } from './oauth-error.js';
import { rotateRefreshToken } from './refresh-rotation.js';
import { TokenGrants, type TokenResponse } from './token-grants.js';

export type { TokenResponse };

/**
 * The audience a client asks its token for: `audience`, or RFC 8707's `resource`; a URI-like
 * string without spaces. Unset: the token is for ISSUER.
 */
function requestedAudience(request: FastifyRequest): string | undefined {
  const audience = parameter(request, 'audience', 255) ?? parameter(request, 'resource', 255);
  if (audience !== undefined && !/^[\x21-\x7e]+$/.test(audience)) {
    throw new OAuthError(400, 'invalid_request', 'audience must be a URI without spaces.');
  }
  return audience;
}

/**
 * `POST /api/auth/token`: the client authenticates first (Basic or `client_secret_post`), then
 * - `client_credentials` (RFC 6749 §4.4): a service access token for the client itself, no
 *   refresh token;
 * - `refresh_token` (§6): rotates exactly like `/api/auth/refresh`, the same single use, and a
 *   reused refresh token revokes its session (`invalid_grant`).
 */
@Injectable()
export class TokenEndpointService {
  constructor(
    private readonly clients: OAuthClients,
    private readonly registry: ClientsService,
    private readonly clientTokens: ClientTokensService,
    private readonly sessions: SessionService,
    private readonly audit: AuditLog,
    private readonly config: AppConfig,
    private readonly grants: TokenGrants,
  ) {}

  async token(request: FastifyRequest): Promise<TokenResponse> {
    const grantType = parameter(request, 'grant_type', 64);
    // Grants of the OpenID provider authenticate their clients themselves (public clients send no secret).
    const handler = grantType === undefined ? undefined : this.grants.handlerOf(grantType);
    if (handler) return handler(request, { authenticateClient: () => this.clients.authenticate(request, 'token') });
    const clientId = await this.clients.authenticate(request, 'token');
    if (grantType === undefined) throw new OAuthError(400, 'invalid_request', 'grant_type is required.');
    if (grantType === 'client_credentials' || grantType === 'refresh_token') {
      // A client uses only the grants it was registered with (client_credentials: confidential clients that asked for it).
      const client = await this.registry.findById(clientId);
      if (!client || !this.registry.allowsGrant(client, grantType)) {
        throw new OAuthError(400, 'unauthorized_client', `This client is not allowed the ${grantType} grant.`);
      }
    }
    if (grantType === 'client_credentials') return this.clientCredentials(clientId, request);
    if (grantType === 'refresh_token') return this.refresh(request);
    throw new OAuthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials or refresh_token.');
  }

  private async clientCredentials(clientId: string, request: FastifyRequest): Promise<TokenResponse> {
    if (!mayHoldServiceTokens(clientId)) {
      throw new OAuthError(
        400,
        'unauthorized_client',
        'This client cannot use client_credentials: its id must not look like a user id (a UUID).',
      );
    }
    const issued = await this.clientTokens.issue(clientId, requestedAudience(request));
    await this.audit.record({
      type: 'client.token',
      targetType: 'client',
      targetId: clientId.slice(0, 64),
      client: { ip: request.ip, userAgent: request.headers['user-agent'] },
      details: { client_id: clientId },
    });
    return { access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn };
  }

  private async refresh(request: FastifyRequest): Promise<TokenResponse> {
    const refreshToken = parameter(request, 'refresh_token');
    if (refreshToken === undefined) throw new OAuthError(400, 'invalid_request', 'refresh_token is required.');
    return rotateRefreshToken(this.sessions, refreshToken, this.config.jwt.accessTokenTtl);
  }
}
