import { errors, jwtVerify, decodeProtectedHeader, type JWTPayload } from 'jose';
import type { IncomingHttpHeaders } from 'node:http';
import { authServiceUnavailable, unauthenticated } from './library-errors.js';
import { joseKey, KeysUnavailableError, type KeySource } from './verification-keys.js';

export const ACCESS_TOKEN_COOKIE = 'access_token';

/** The scheme name is case-insensitive (RFC 7235 §2.1); the credentials are a compact JWS. */
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/i;

/** The token of an `Authorization: Bearer <token>` header (`bearer`, `BEARER` alike), else null. */
export function bearerToken(authorization: string): string | null {
  return BEARER.exec(authorization.trim())?.[1] ?? null;
}

/** How far ahead of this host's clock a token's `iat` may be: the clocks of two hosts differ a little. */
export const CLOCK_SKEW_SECONDS = 60;

/**
 * Every token must say when it was issued and when it expires; one issued more than
 * CLOCK_SKEW_SECONDS in the future was not issued by a host with a sane clock (or was forged with
 * the secret to outlive a rotation). Expiry itself is checked by the JWT library, without leeway:
 * a skewed clock then ends a token early, never late.
 */
export function hasValidTimes(claims: Record<string, unknown>, nowMs = Date.now()): boolean {
  const { exp, iat } = claims;
  return (
    typeof exp === 'number' &&
    Number.isFinite(exp) &&
    typeof iat === 'number' &&
    Number.isFinite(iat) &&
    iat <= nowMs / 1000 + CLOCK_SKEW_SECONDS
  );
}

/**
 * `Authorization: Bearer` first, else the `access_token` cookie, as the auth service reads them.
 * The Cookie header is parsed here so the importing service needs no cookie plugin, on Fastify
 * or Express alike. A malformed Authorization header does not fall back to the cookie.
 */
export function extractAccessToken(headers: IncomingHttpHeaders): string | null {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') return bearerToken(authorization);
  return readCookie(headers.cookie, ACCESS_TOKEN_COOKIE);
}

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=');
    if (separator < 0 || pair.slice(0, separator).trim() !== name) continue;
    let value = pair.slice(separator + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      return decodeURIComponent(value) || null;
    } catch {
      return null;
    }
  }
  return null;
}

/** What the guard needs from a verified access token. */
export interface VerifiedAccessToken {
  userId: string;
  sessionId: string;
  email: string;
  expiresAt: number;
  /** `auth_time` (seconds since the epoch), when the token carries one. */
  authTime?: number;
  /** `amr` (RFC 8176), empty when the token carries none. */
  amr?: string[];
}

/**
 * Verifies the auth service's access tokens locally, with `jose`: the signature against a key
 * of the KeySource chosen by the header's `kid` and restricted to that key's one algorithm (so
 * `alg: none`, a public key used as an HMAC secret and every other algorithm are refused), expiry,
 * `iat` (see hasValidTimes) and `token_type: "access"` (a refresh or 2FA token signed with the
 * same key is not an access token).
 *
 * `verify` answers null only when the KeySource holds no key that could have signed the token
 * (the auth service signs with a shared secret and publishes none): the guard then leaves the
 * decision to the auth service's introspection, which is authoritative anyway.
 */
export class AccessTokenVerifier {
  constructor(private readonly keys: KeySource) {}

  async verify(token: string): Promise<VerifiedAccessToken | null> {
    let header: { alg?: unknown; kid?: unknown };
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw unauthenticated();
    }
    if (typeof header.alg !== 'string' || (header.kid !== undefined && typeof header.kid !== 'string'))
      throw unauthenticated();
    let candidates;
    try {
      candidates = await this.keys.candidates(header.alg, header.kid as string | undefined);
    } catch (error) {
      if (error instanceof KeysUnavailableError) throw authServiceUnavailable();
      throw error;
    }
    if (candidates === null) return null;
    for (const candidate of candidates) {
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(token, joseKey(candidate.key), { algorithms: [candidate.algorithm] }));
      } catch (error) {
        if (error instanceof errors.JWSSignatureVerificationFailed) continue;
        throw unauthenticated();
      }
      return accessClaims(claims as Record<string, unknown>);
    }
    throw unauthenticated();
  }
}

function accessClaims(claims: Record<string, unknown>): VerifiedAccessToken {
  if (
    claims.token_type !== 'access' ||
    typeof claims.sub !== 'string' ||
    typeof claims.sid !== 'string' ||
    !hasValidTimes(claims)
  ) {
    throw unauthenticated();
  }
  return {
    userId: claims.sub,
    sessionId: claims.sid,
    email: typeof claims.email === 'string' ? claims.email : '',
    expiresAt: (claims.exp as number) * 1000,
    ...stepUpClaims(claims),
  };
}

/** `auth_time` and `amr` when the token (or an introspection answer) carries them; absent otherwise. */
export function stepUpClaims(claims: Record<string, unknown>): { authTime?: number; amr?: string[] } {
  const authTime = authTimeOf(claims.auth_time);
  return {
    ...(authTime !== undefined ? { authTime } : {}),
    ...(claims.amr !== undefined ? { amr: amrOf(claims.amr) } : {}),
  };
}

/** `auth_time` as a finite number of seconds, else absent (such a token is never fresh). */
export function authTimeOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** `amr` as an array of strings, else empty (such a token has no second factor). */
export function amrOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
