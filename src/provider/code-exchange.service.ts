import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { AuditLog } from '../audit/index.js';
import { clientOf } from '../common/client-info.js';
import { sha256Hex } from '../common/token-hash.js';
import { AppConfig } from '../config/app-config.js';
import { UsersRepository } from '../identity/index.js';
import {
  OAuthError,
  parameter,
  rotateRefreshToken,
  TokenGrants,
  type TokenGrantContext,
  type TokenResponse,
} from '../oidc/index.js';
import { isUuid, methodsOf, SessionService, SessionsRepository, TokenService } from '../sessions/index.js';
import { OrganizationTokensService } from '../organizations/index.js';
import { IdTokens } from './id-tokens.js';
import { ProviderRepository } from './provider.repository.js';
import { RelyingParties, type RelyingParty } from './relying-parties.js';

const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

const invalidGrant = (description: string) => new OAuthError(400, 'invalid_grant', description);

/**
 * The token endpoint's grants of the OpenID provider: `authorization_code` (a code spent once,
 * under its row's lock, bound to its client, redirect URI and PKCE challenge; a second exchange
 * ends the session the first one made) and `refresh_token` (bound to the client it was issued to).
 * A code's exchange makes a session of the person for that client, under the browser sign-in it
 * came from: one session model, one way to end it.
 */
@Injectable()
export class CodeExchangeService implements OnModuleInit {
  constructor(
    private readonly grants: TokenGrants,
    private readonly clients: RelyingParties,
    private readonly repository: ProviderRepository,
    private readonly sessions: SessionService,
    private readonly sessionRows: SessionsRepository,
    private readonly tokens: TokenService,
    private readonly users: UsersRepository,
    private readonly idTokens: IdTokens,
    private readonly audit: AuditLog,
    private readonly config: AppConfig,
    private readonly organizations: OrganizationTokensService,
  ) {}

  onModuleInit(): void {
    this.grants.register('authorization_code', (request, context) => this.exchange(request, context));
    this.grants.register('refresh_token', (request, context) => this.refresh(request, context));
  }

  async exchange(request: FastifyRequest, context: TokenGrantContext): Promise<TokenResponse> {
    const client = await this.authenticate(request, context);
    if (!client || !client.grantTypes.includes('authorization_code')) {
      if (client)
        throw new OAuthError(400, 'unauthorized_client', 'This client may not use the authorization code grant.');
      throw new OAuthError(401, 'invalid_client', 'Client authentication failed.');
    }
    const code = parameter(request, 'code', 200);
    const redirectUri = parameter(request, 'redirect_uri', 2000);
    const verifier = parameter(request, 'code_verifier', 128);
    if (code === undefined) throw new OAuthError(400, 'invalid_request', 'code is required.');
    const codeHash = sha256Hex(code);
    const row = await this.repository.spendCode(codeHash);
    if (!row) {
      const replayed = await this.repository.markCodeReplayed(codeHash);
      if (replayed) {
        // RFC 6749 §4.1.2: a code used twice revokes what it was exchanged for.
        if (replayed.issuedSessionId) await this.sessions.revoke(replayed.issuedSessionId, 'code_reuse');
        await this.audit.record({
          type: 'provider.code_reuse',
          actorId: replayed.userId,
          targetType: 'client',
          targetId: replayed.clientId,
          details: { client_id: client.clientId },
        });
        throw invalidGrant('The authorization code was already used; the tokens issued for it are revoked.');
      }
      throw invalidGrant('The authorization code is invalid, expired or used.');
    }
    // Spent whatever follows: a code is tried once.
    const bound =
      row.clientId === client.clientId &&
      row.redirectUri === redirectUri &&
      new Date(row.expiresAt).getTime() > Date.now() &&
      verifier !== undefined &&
      CODE_VERIFIER.test(verifier) &&
      s256(verifier) === row.codeChallenge;
    const parent = bound ? await this.repository.findLiveSession(row.sessionId) : null;
    const account = parent && parent.userId === row.userId ? await this.users.findSignInAccount(row.userId) : null;
    if (!parent || !account) throw invalidGrant('The authorization code is invalid, expired or used.');
    const authTime = new Date(parent.authTime);
    const tokens = await this.sessions.start(
      account,
      clientOf(request),
      { time: authTime, methods: methodsOf(parent.amr) },
      {
        grant: { clientId: client.clientId, parentSessionId: row.sessionId, scope: row.scope, audience: row.resource },
        event: { type: 'provider.token', actorId: row.userId, details: { client_id: client.clientId } },
      },
    );
    // A replay that came while the session was being made could not end it: it ends here.
    if ((await this.repository.recordIssuedSession(codeHash, tokens.sessionId)).replayed) {
      await this.sessions.revoke(tokens.sessionId, 'code_reuse');
      throw invalidGrant('The authorization code was already used; the tokens issued for it are revoked.');
    }
    const scopes = row.scope.split(' ').filter(Boolean);
    const response: TokenResponse = {
      access_token: tokens.accessToken,
      token_type: 'Bearer',
      expires_in: this.config.jwt.accessTokenTtl,
      scope: row.scope,
    };
    if (scopes.includes('openid')) {
      response.id_token = await this.idTokens.issue({
        userId: row.userId,
        clientId: client.clientId,
        sessionId: row.sessionId,
        nonce: row.nonce,
        authTime,
        amr: methodsOf(parent.amr),
        scopes,
      });
    }
    if (scopes.includes('offline_access') && client.grantTypes.includes('refresh_token')) {
      response.refresh_token = tokens.refreshToken;
    }
    return response;
  }

  /**
   * Refresh rotation as `/auth/refresh` does it, for the client the token was issued to; a token
   * of the API's own sign-in, by an authenticated (confidential) client, as before.
   */
  async refresh(request: FastifyRequest, context: TokenGrantContext): Promise<TokenResponse> {
    const client = await this.authenticate(request, context);
    if (!client) throw new OAuthError(401, 'invalid_client', 'Client authentication failed.');
    const refreshToken = parameter(request, 'refresh_token');
    if (refreshToken === undefined) throw new OAuthError(400, 'invalid_request', 'refresh_token is required.');
    let sessionId: string;
    try {
      sessionId = (await this.tokens.verify(refreshToken, 'refresh')).sid;
    } catch {
      throw invalidGrant('The refresh token is invalid, expired or revoked.');
    }
    const holder = await this.sessionRows.findHolder(sessionId);
    const issuedTo = holder?.clientId ?? null;
    // A client uses only the grants it was registered with.
    if (!client.grantTypes.includes('refresh_token'))
      throw new OAuthError(400, 'unauthorized_client', 'This client is not allowed the refresh_token grant.');
    const allowed = issuedTo === null ? client.type === 'confidential' : issuedTo === client.clientId;
    if (!allowed) throw invalidGrant('The refresh token was not issued to this client.');
    // `organization_id`: that organization's access token, of the same session. Judged before the
    // rotation, so a refused organization does not use the refresh token up.
    const organizationId = parameter(request, 'organization_id', 64);
    if (
      organizationId !== undefined &&
      (!holder || !isUuid(organizationId) || !(await this.organizations.isMember(organizationId, holder.userId)))
    )
      throw new OAuthError(400, 'invalid_request', 'organization_id names no organization of this user.');
    return {
      ...(await rotateRefreshToken(this.sessions, refreshToken, this.config.jwt.accessTokenTtl, organizationId)),
      ...(holder?.scope ? { scope: holder.scope } : {}),
    };
  }

  /**
   * The calling client: a confidential one by its secret (Basic or `client_secret_post`, as every
   * client endpoint), a public one by its `client_id` alone (`none`); null when neither holds.
   */
  private async authenticate(request: FastifyRequest, context: TokenGrantContext): Promise<RelyingParty | null> {
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (request.headers.authorization !== undefined || body.client_secret !== undefined) {
      const clientId = await context.authenticateClient();
      return this.clients.find(clientId);
    }
    const clientId = parameter(request, 'client_id', 100);
    const client = clientId === undefined ? null : await this.clients.find(clientId);
    return client?.type === 'public' ? client : null;
  }
}

/** RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))). */
function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
