import type { AuthenticationMethod } from './authentication-methods.js';

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
  /** When the session's holder last proved presence, in seconds since the epoch (OpenID Connect). */
  auth_time: number;
  /** How they proved it (RFC 8176). */
  amr: AuthenticationMethod[];
}

/** The temp token of a two-factor challenge carries the first factor its sign-in used. */
export interface TwoFactorClaims extends BaseClaims {
  token_type: '2fa';
  amr?: AuthenticationMethod[];
}

export interface RefreshClaims extends BaseClaims {
  token_type: 'refresh';
  sid: string;
  /** The session generation this refresh token belongs to. */
  gen: number;
  /**
   * The session's absolute end (seconds since the epoch), which caps every refresh token of the
   * session: the next one is signed from this token alone, before the rotation's one statement.
   * Absent from refresh tokens issued before it was added (they take the locked path once).
   */
  session_exp?: number;
}

export type ClaimsOf<T extends TokenType> = T extends 'access'
  ? AccessClaims
  : T extends 'refresh'
    ? RefreshClaims
    : TwoFactorClaims;
