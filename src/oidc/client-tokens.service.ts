import type { PrincipalRecord } from '@auth-rbac/nest-guard/internal';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ClientsService } from '../clients/index.js';
import { AppConfig } from '../config/app-config.js';
import { isUuid, SigningKeys } from '../sessions/index.js';
import { ClientTokensRepository } from './client-tokens.repository.js';
import type { SessionRef } from '../common/session-ref.js';
import { IntervalGate } from '../common/interval-gate.js';

/** A client id: letters, digits, dots, dashes, underscores (as `create-client` and SERVICE_CLIENTS allow). */
const CLIENT_ID = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * Whether the grant may serve this client: its id must not be mistaken for a person's (a UUID),
 * in the audit trail or by a reader of its tokens.
 */
export function mayHoldServiceTokens(clientId: string): boolean {
  return CLIENT_ID.test(clientId) && !isUuid(clientId);
}

export interface IssuedServiceToken {
  accessToken: string;
  expiresIn: number;
}

/** How often the grant removes rows expired for a day (ClientTokensRepository.deleteLongExpired). */
const CLIENT_TOKEN_SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * The client-credentials grant's service access tokens: `sub` and `client_id` the client,
 * `token_type: "access"`, `sid` the token's own row (so a revocation ends it at once on every
 * instance), ACCESS_TOKEN_EXPIRY long, no refresh token (RFC 6749 §4.4.3). Its permissions are
 * those of the client's roles at the time of each request, read with the token's row.
 */
@Injectable()
export class ClientTokensService {
  /** Long-expired rows are removed by the first grant of a process, then at most every interval. */
  private readonly sweeps = new IntervalGate(CLIENT_TOKEN_SWEEP_INTERVAL_MS, 'at once');

  constructor(
    private readonly keys: SigningKeys,
    private readonly tokens: ClientTokensRepository,
    private readonly config: AppConfig,
    clients: ClientsService,
  ) {
    // A deleted client's tokens end with it, in the same transaction.
    clients.whenDeleted((manager, clientId) => this.tokens.revokeAllOfClient(manager, clientId));
  }

  /** `audience`: the service the token is for, when the client asked for one; default ISSUER. */
  async issue(clientId: string, audience?: string): Promise<IssuedServiceToken> {
    const ttl = this.config.jwt.accessTokenTtl;
    // Not on every grant: the planner scans the whole table for that DELETE until it has
    // statistics, so a grant slowed with every live token (1,013 → 701 grants a second over four
    // rounds of five seconds).
    if (this.sweeps.due()) await this.tokens.deleteLongExpired();
    const sid = await this.tokens.insert(clientId, new Date(Date.now() + ttl * 1000));
    const accessToken = await this.keys.sign(
      { sub: clientId, client_id: clientId, token_type: 'access', sid, jti: randomUUID() },
      ttl,
      'access',
      audience,
    );
    return { accessToken, expiresIn: ttl };
  }

  /** The caller of a live service token (`userId` its client, `sessionId` its row), or null (revoked, expired, not a client's token). */
  async principal(caller: SessionRef): Promise<PrincipalRecord | null> {
    const { userId: clientId, sessionId: tokenId } = caller;
    if (!isUuid(tokenId)) return null;
    const row = await this.tokens.findPrincipalOfActiveToken({ tokenId, clientId });
    if (!row) return null;
    return { id: clientId, kind: 'service', email: '', name: clientId, roles: row.roles, permissions: row.permissions };
  }

  /** Ends a service token (revocation); false when it was not live. */
  revoke(tokenId: string): Promise<boolean> {
    return isUuid(tokenId) ? this.tokens.revoke(tokenId) : Promise.resolve(false);
  }
}
