import { AnyAudienceVerifier, SessionService, TokenService } from '../sessions/index.js';
import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ClientTokensService } from './client-tokens.service.js';
import { OAuthClients, parameter } from './oauth-clients.js';
import { OAuthError } from './oauth-error.js';

/** A token this service issued: the client it was issued to (null: the API's own sign-in), and how to end it. */
interface RevocableToken {
  issuedTo: string | null;
  end: () => Promise<unknown>;
}

/**
 * `POST /api/auth/revoke` (RFC 7009): an authenticated client ends the session of a refresh or
 * access token issued to it. An invalid, unknown or expired token is answered 200 (§2.2); a valid
 * token issued to another client, or to none (the API's own sign-in), is refused with 400
 * `unauthorized_client` and stays valid (§2.1: "the authorization server first validates ...
 * whether the token was issued to the client making the revocation request").
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
    const clientId = await this.clients.authenticate(request, 'revoke');
    const token = parameter(request, 'token');
    if (token === undefined) throw new OAuthError(400, 'invalid_request', 'token is required.');
    // The hint only orders the attempts (§2.1); both kinds are tried.
    const refreshFirst = parameter(request, 'token_type_hint', 64) === 'refresh_token';
    const found = refreshFirst
      ? ((await this.asRefresh(token)) ?? (await this.asAccess(token)))
      : ((await this.asAccess(token)) ?? (await this.asRefresh(token)));
    if (!found) return;
    if (found.issuedTo !== clientId) {
      throw new OAuthError(400, 'unauthorized_client', 'This token was not issued to this client.');
    }
    await found.end();
  }

  private async asRefresh(token: string): Promise<RevocableToken | null> {
    const claims = await this.tokens.verify(token, 'refresh').catch(() => null);
    if (!claims) return null;
    return { issuedTo: issuedTo(claims), end: () => this.sessions.revoke(claims.sid, 'logout') };
  }

  private async asAccess(token: string): Promise<RevocableToken | null> {
    const claims = await this.verifier.verify(token).catch(() => null);
    if (!claims) return null;
    if (claims.kind === 'service') {
      // A service token is its client's own: `sub` is the client id.
      return { issuedTo: claims.userId, end: () => this.clientTokens.revoke(claims.sessionId) };
    }
    return { issuedTo: issuedTo(claims), end: () => this.sessions.revoke(claims.sessionId, 'logout') };
  }
}

/**
 * The client a person's token was issued to: its `client_id` claim, which tokens issued to a
 * client carry; none for the API's own sign-in, whose tokens no client may revoke.
 */
function issuedTo(claims: object): string | null {
  const clientId = (claims as { client_id?: unknown }).client_id;
  return typeof clientId === 'string' ? clientId : null;
}
