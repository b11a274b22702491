import { Injectable } from '@nestjs/common';
import { hasValidTimes } from '@auth-rbac/nest-guard/internal';
import { decodeJwt } from 'jose';
import { randomUUID } from 'node:crypto';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { isUuid, personIdOf } from './caller.js';
import { SigningKeys } from './signing-keys.js';
import { epochSeconds, type Authentication, type AuthenticationMethod } from './authentication-methods.js';
import type { AccessClaims, ClaimsOf, RefreshClaims, TokenType, TwoFactorClaims } from './token-claims.js';

/** The specification's temp-token lifetime: five minutes. */
export const TWO_FACTOR_TOKEN_TTL = 300;

export interface SessionIdentity {
  userId: string;
  email: string;
  sessionId: string;
}

/** What an access token issued to a client of the OpenID provider carries beside a session's claims. */
export interface ClientGrantClaims {
  clientId: string;
  scope: string;
  /** RFC 8707's `resource`: the token's `aud`; null: ISSUER. */
  audience: string | null;
}

/** Signs and verifies the service's JWTs with its SigningKeys, with `token_type` checked on every use. */
@Injectable()
export class TokenService {
  constructor(
    private readonly keys: SigningKeys,
    private readonly config: AppConfig,
  ) {}

  signAccess(
    identity: SessionIdentity,
    authentication: Authentication,
    grant?: ClientGrantClaims | null,
    organizationId?: string,
  ): Promise<string> {
    const claims: Omit<AccessClaims, 'iat' | 'exp'> & { client_id?: string; scope?: string; org_id?: string } = {
      sub: identity.userId,
      email: identity.email,
      token_type: 'access',
      sid: identity.sessionId,
      auth_time: epochSeconds(authentication.time),
      amr: authentication.methods,
      jti: randomUUID(),
      ...(grant ? { client_id: grant.clientId, scope: grant.scope } : {}),
      // An organization token: the same session, speaking for that organization alone.
      ...(organizationId !== undefined ? { org_id: organizationId } : {}),
    };
    return this.keys.sign(claims, this.config.jwt.accessTokenTtl, 'access', grant?.audience ?? undefined);
  }

  /** A refresh token never outlives its session's absolute end. */
  signRefresh(identity: SessionIdentity, generation: number, sessionExpiresAt: Date): Promise<string> {
    const untilSessionEnd = Math.floor((sessionExpiresAt.getTime() - Date.now()) / 1000);
    const claims: Omit<RefreshClaims, 'iat' | 'exp'> = {
      sub: identity.userId,
      email: identity.email,
      token_type: 'refresh',
      sid: identity.sessionId,
      gen: generation,
      jti: randomUUID(),
      session_exp: Math.floor(sessionExpiresAt.getTime() / 1000),
    };
    return this.keys.sign(claims, Math.max(1, Math.min(this.config.jwt.refreshTokenTtl, untilSessionEnd)), 'refresh');
  }

  /** The temp token of a two-factor challenge: valid only at verify-2fa, bound by `jti` to its code. */
  signTwoFactor(
    identity: { userId: string; email: string },
    jti: string,
    firstFactor: Exclude<AuthenticationMethod, 'mfa'> = 'pwd',
  ): Promise<string> {
    const claims: Omit<TwoFactorClaims, 'iat' | 'exp'> = {
      sub: identity.userId,
      email: identity.email,
      token_type: '2fa',
      amr: [firstFactor],
      jti,
    };
    return this.keys.sign(claims, TWO_FACTOR_TOKEN_TTL, '2fa');
  }

  /** Like `verify(token, '2fa')`, but an expired temp token is OTP_EXPIRED: the user must sign in again. */
  async verifyTwoFactor(token: string): Promise<TwoFactorClaims> {
    try {
      await this.keys.verify(token, '2fa', { ignoreExpiration: true });
    } catch {
      throw invalidToken();
    }
    try {
      return await this.verify(token, '2fa');
    } catch (error) {
      const { exp } = decodeJwt(token);
      if (typeof exp === 'number' && exp * 1000 <= Date.now()) {
        throw new AppException('OTP_EXPIRED', 'The sign-in has expired: sign in again.');
      }
      throw error;
    }
  }

  /**
   * The claims of a valid token of the expected type; anything else (bad signature, other
   * algorithm, expired, malformed, wrong type) is 401 UNAUTHENTICATED with one message.
   */
  async verify<T extends TokenType>(token: string, expected: T): Promise<ClaimsOf<T>> {
    let claims: Record<string, unknown>;
    try {
      claims = await this.keys.verify(token, expected);
    } catch {
      throw invalidToken();
    }
    // These tokens are a person's (a service client has no session to refresh and no second
    // factor), so `sub` must be a person's id; the ids are looked up in uuid columns.
    if (
      claims.token_type !== expected ||
      personIdOf(claims.sub) === null ||
      typeof claims.jti !== 'string' ||
      !hasValidTimes(claims)
    ) {
      throw invalidToken();
    }
    if (expected !== '2fa' && !isUuid(claims.sid)) throw invalidToken();
    return claims as unknown as ClaimsOf<T>;
  }
}

export function invalidToken(): AppException {
  return new AppException('UNAUTHENTICATED', 'The token is missing, invalid, expired or revoked.');
}
