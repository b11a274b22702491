import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** RFC 6749 §5.1's successful answer (with OpenID Connect's `id_token` for the authorization code). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope?: string;
  id_token?: string;
}

/** What the token endpoint hands a grant it does not implement itself. */
export interface TokenGrantContext {
  /** The confidential client's authentication (Basic or `client_secret_post`), as the endpoint does it. */
  authenticateClient(): Promise<string>;
}

export type TokenGrantHandler = (request: FastifyRequest, context: TokenGrantContext) => Promise<TokenResponse>;

/**
 * Grants of the token endpoint implemented by a capability above this one (the OpenID provider's
 * `authorization_code`, and its `refresh_token` that knows which client a token was issued to),
 * added at start, so the endpoint stays one route without importing them.
 */
@Injectable()
export class TokenGrants {
  private readonly handlers = new Map<string, TokenGrantHandler>();

  register(grantType: string, handler: TokenGrantHandler): void {
    this.handlers.set(grantType, handler);
  }

  handlerOf(grantType: string): TokenGrantHandler | undefined {
    return this.handlers.get(grantType);
  }
}
