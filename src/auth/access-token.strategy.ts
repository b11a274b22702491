import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { Strategy } from 'passport-jwt';
import type { AuthUser } from '../rbac/auth-user.js';
import { bearerToken, hasValidTimes } from '../guard-library/access-token.js';
import { PrincipalService } from '../rbac/principal.service.js';
import { JwtKey } from './jwt-key.js';
import type { AccessClaims } from './token-claims.js';
import { invalidToken, isUuid } from './token.service.js';

export const ACCESS_TOKEN_COOKIE = 'access_token';

/** `Authorization: Bearer` (the scheme in any case) first, else the `access_token` cookie. */
export function extractAccessToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === 'string') return bearerToken(header);
  return request.cookies?.[ACCESS_TOKEN_COOKIE] ?? null;
}

/**
 * Verifies the access token (HS256 only, expiry, `token_type`), then loads the caller of a live
 * session through PrincipalService, whose cache every revocation and authorization change
 * invalidates on every instance.
 */
@Injectable()
export class AccessTokenStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    key: JwtKey,
    private readonly principals: PrincipalService,
  ) {
    super({
      jwtFromRequest: extractAccessToken as never,
      secretOrKey: key.key as never,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
  }

  async validate(claims: Partial<AccessClaims>): Promise<AuthUser> {
    if (claims.token_type !== 'access' || !isUuid(claims.sid) || !isUuid(claims.sub) || !hasValidTimes(claims as Record<string, unknown>)) {
      throw invalidToken();
    }
    const principal = await this.principals.load(claims.sid, claims.sub);
    if (!principal) throw invalidToken();
    return principal;
  }
}
