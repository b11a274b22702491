import { AnyAudienceVerifier, SessionService, TokenService } from '../sessions/index.js';
import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ClientTokensService } from './client-tokens.service.js';
import { OAuthClients, parameter } from './oauth-clients.js';
import { OAuthError } from './oauth-error.js';

/**
 * `POST /api/auth/revoke` (RFC 7009): an authenticated client ends the session of a refresh or
 * access token of this service (or the service token itself). Whatever the token, the answer is
 * 200 (§2.2: an invalid or unknown token is no error), so it reveals nothing.
 */
@Injectable()
export class RevocationService {
  constructor(
    private readonly clients: OAuthClients,
    private readonly tokens: TokenService,
    private readonly verifier: AnyAudienceVerifier,
    private readonly sessions: SessionService,
    private readonly clientTokens: ClientTokensService,
  ) {}

  async revoke(request: FastifyRequest): Promise<void> {
    await this.clients.authenticate(request, 'revoke');
    const token = parameter(request, 'token');
    if (token === undefined) throw new OAuthError(400, 'invalid_request', 'token is required.');
    // The hint only orders the attempts (§2.1); both kinds are tried.
    const refreshFirst = parameter(request, 'token_type_hint', 64) === 'refresh_token';
    if (refreshFirst) {
      if (!(await this.asRefresh(token))) await this.asAccess(token);
    } else if (!(await this.asAccess(token))) {
      await this.asRefresh(token);
    }
  }

  private async asRefresh(token: string): Promise<boolean> {
    const claims = await this.tokens.verify(token, 'refresh').catch(() => null);
    if (!claims) return false;
    await this.sessions.revoke(claims.sid, 'logout');
    return true;
  }

  private async asAccess(token: string): Promise<boolean> {
    const claims = await this.verifier.verify(token).catch(() => null);
    if (!claims) return false;
    if (claims.kind === 'service') await this.clientTokens.revoke(claims.sessionId);
    else await this.sessions.revoke(claims.sessionId, 'logout');
    return true;
  }
}
