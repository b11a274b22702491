/** `token_type` tells the three JWTs apart; each is accepted only where it belongs. */
export type TokenType = 'access' | 'refresh' | '2fa';

export interface BaseClaims {
  sub: string;
  email: string;
  token_type: TokenType;
  jti: string;
  iat: number;
  exp: number;
}

export interface AccessClaims extends BaseClaims {
  token_type: 'access';
  sid: string;
}

export interface RefreshClaims extends BaseClaims {
  token_type: 'refresh';
  sid: string;
  /** The session generation this refresh token belongs to. */
  gen: number;
}

export type ClaimsOf<T extends TokenType> = T extends 'access'
  ? AccessClaims
  : T extends 'refresh'
    ? RefreshClaims
    : BaseClaims;
