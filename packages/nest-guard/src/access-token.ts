import { errors, jwtVerify, decodeProtectedHeader, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { checkedMaxEntries, DEFAULT_CACHE_MAX_ENTRIES } from './auth-guard.options.js';
import type { CallerKind } from './auth-user.js';
import { authServiceUnavailable, unauthenticated } from './library-errors.js';
import type { VerifiedSecurityEvent } from './security-event-token.js';
import { joseKey, KeysUnavailableError, type KeySource, type VerificationKey } from './verification-keys.js';

/**
 * The longest a verified token is answered from memory before its signature is checked again:
 * the age of a fetched JWKS, so a key the auth service withdraws stops verifying as soon as before.
 */
export const VERIFIED_TOKEN_MAX_AGE_MS = 5 * 60_000;

export const ACCESS_TOKEN_COOKIE = 'access_token';

/** The scheme name is case-insensitive (RFC 7235 §2.1); the credentials are a compact JWS. */
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/i;

/** The token of an `Authorization: Bearer <token>` header (`bearer`, `BEARER` alike), else null. */
export function bearerToken(authorization: string): string | null {
  return BEARER.exec(authorization.trim())?.[1] ?? null;
}

/**
 * The credentials of an `Authorization` header in the usual spelling (`Bearer`, any case, one
 * space), exactly as sent and with their form unchecked; null for any other header. Only a key to
 * look up tokens verified before: those were read by `bearerToken`, and only the same string has
 * the same digest, so the form need not be checked again for a token already known.
 */
export function bearerCredentials(authorization: string): string | null {
  return authorization.length > 7 && authorization.charCodeAt(6) === 32 && BEARER_SCHEME.test(authorization.slice(0, 6))
    ? authorization.slice(7)
    : null;
}

const BEARER_SCHEME = /^bearer$/i;

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

/**
 * The key a token is cached under: its SHA-256, so no cache holds a bearer token itself. Computed
 * once per request (the verifier hands it on in `VerifiedAccessToken.digest`); in hex, which
 * Node encodes in two thirds of base64url's time (1.0 against 1.5 µs for a 600-byte token).
 */
export function tokenDigest(token: string): string {
  return hash('sha256', token, 'hex');
}

/**
 * Who a token's subject is, by the one rule the auth service signs by: a service client's own
 * token (the client-credentials grant, RFC 9068 §2.2) names the client as both `sub` and
 * `client_id`; every other token names a person (a token a client obtained for a user carries the
 * user as `sub` and the client as `client_id`). An introspection answer is read the same way.
 */
export function callerKindOf(claims: { sub?: unknown; client_id?: unknown }): CallerKind {
  return typeof claims.client_id === 'string' && claims.client_id === claims.sub ? 'service' : 'person';
}

/** What the guard needs from a verified access token. */
export interface VerifiedAccessToken {
  /** The `sub`: a person's user id, or a service client's id (see `kind`). */
  userId: string;
  /** Whether `sub` is a person or a service client (`callerKindOf`). */
  kind: CallerKind;
  sessionId: string;
  email: string;
  /** `client_id`, when the token names the client it was issued to. */
  clientId?: string;
  /** The token's SHA-256 (`tokenDigest`), the key of every per-token cache. */
  digest: string;
  /** `exp` in milliseconds since the epoch: the token is refused from that instant on. */
  expiresAt: number;
  /** `iat`, seconds since the epoch: compared with a `credential-change`'s `not_before`. */
  issuedAt: number;
  /** `auth_time` (seconds since the epoch), when the token carries one. */
  authTime?: number;
  /** `amr` (RFC 8176), empty when the token carries none. */
  amr?: string[];
  /** `org_id`: the organization an organization token speaks for; absent for an ordinary token. */
  organizationId?: string;
}

/**
 * Verifies the auth service's access tokens locally, with `jose`: the signature against a key
 * of the KeySource chosen by the header's `kid` and restricted to that key's one algorithm (so
 * `alg: none`, a public key used as an HMAC secret and every other algorithm are refused), expiry,
 * `iat` (see hasValidTimes), the header's `typ: at+jwt`, `iss` and `aud` (the configured issuer
 * and audience) and `token_type: "access"` (a refresh or 2FA token is not an access token).
 *
 * A token that passed is kept (by its digest, at most `maxEntries`, least recently used first)
 * until its `exp`, for at most VERIFIED_TOKEN_MAX_AGE_MS and never past its key's `validUntil`:
 * the same token again costs a digest and a look-up instead of a signature check, the largest
 * part of a guarded request. Nothing of a token's checks depends on anything
 * but the token and the keys, except its expiry, which is checked again on every use; whether
 * its session is still live is the PrincipalSource's question, asked on every request. A
 * withdrawn key (`keys-rotated`), a revoked session or user, or a lost event stream (`reset`)
 * drops what it concerns (`forget`).
 *
 * `verify` answers null only when the KeySource holds no key that could have signed the token
 * (the auth service signs with a shared secret and publishes none): the guard then leaves the
 * decision to the auth service's introspection, which is authoritative anyway.
 */
export class AccessTokenVerifier {
  private readonly verified: LRUCache<string, { claims: VerifiedAccessToken; until: number }>;

  constructor(
    private readonly keys: KeySource,
    private readonly expected: AccessTokenExpectations = {},
    maxEntries = DEFAULT_CACHE_MAX_ENTRIES,
  ) {
    // Expiry is judged by `expiresAt` on every use; the cache's own TTL only frees the memory.
    this.verified = new LRUCache({ max: checkedMaxEntries(maxEntries), ttlResolution: 0 });
  }

  /** The issuer tokens must name: the configured one, or the auth service's discovered one. */
  async issuer(): Promise<string | undefined> {
    return typeof this.expected.issuer === 'function' ? this.expected.issuer() : this.expected.issuer;
  }

  /** How many verified tokens are kept now. */
  get size(): number {
    return this.verified.size;
  }

  /**
   * The claims of the token with this digest (`tokenDigest`), when it was verified before and is
   * still within its time: answered at once, with no promise; else undefined (`verify` it).
   */
  remembered(digest: string): VerifiedAccessToken | undefined {
    const known = this.verified.get(digest);
    if (!known) return undefined;
    // Expired from `exp` on, exactly as jose judges it (`exp <= now` in whole seconds).
    if (Date.now() < known.until) return known.claims;
    this.verified.delete(digest);
    return undefined;
  }

  async verify(token: string): Promise<VerifiedAccessToken | null> {
    const digest = tokenDigest(token);
    const known = this.remembered(digest);
    if (known) return known;
    const verified = await this.verifyAnew(token, digest);
    if (!verified) return null;
    const { claims, key } = verified;
    const now = Date.now();
    // Until `exp`, for at most VERIFIED_TOKEN_MAX_AGE_MS (a key withdrawn from a JWKS is noticed
    // as before), and never past the end of the key that verified it (a retired secret's end).
    const until = Math.min(claims.expiresAt, now + VERIFIED_TOKEN_MAX_AGE_MS, key.validUntil ?? Infinity);
    if (until > now) this.verified.set(digest, { claims, until }, { ttl: until - now });
    return claims;
  }

  /** Drops the verified tokens an event concerns (all of them for a key change or a lost stream). */
  forget(event: VerifiedSecurityEvent): void {
    switch (event.name) {
      case 'session-revoked':
        return this.forgetWhere((claims) => claims.sessionId === event.sid);
      case 'credential-change':
        return this.forgetWhere((claims) => claims.userId === event.sub);
      case 'keys-rotated':
      case 'reset':
        return this.verified.clear();
      default:
        return;
    }
  }

  private forgetWhere(match: (claims: VerifiedAccessToken) => boolean): void {
    const gone: string[] = [];
    for (const [digest, { claims }] of this.verified.entries()) if (match(claims)) gone.push(digest);
    for (const digest of gone) this.verified.delete(digest);
  }

  private async verifyAnew(
    token: string,
    digest: string,
  ): Promise<{ claims: VerifiedAccessToken; key: VerificationKey } | null> {
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
    let issuer: string | undefined;
    try {
      issuer = await this.issuer();
    } catch (error) {
      if (error instanceof KeysUnavailableError) throw authServiceUnavailable();
      throw error;
    }
    const audience = this.expected.anyAudience
      ? undefined
      : (this.expected.audience ??
        (this.expected.resource !== undefined && issuer !== undefined ? [issuer, this.expected.resource] : issuer));
    for (const candidate of candidates) {
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(token, joseKey(candidate.key), {
          algorithms: [candidate.algorithm],
          // RFC 9068: only an access token carries `at+jwt` (jose also takes `application/at+jwt`).
          typ: ACCESS_TOKEN_TYPE,
          ...(issuer !== undefined ? { issuer } : {}),
          ...(audience !== undefined ? { audience } : {}),
        }));
      } catch (error) {
        if (error instanceof errors.JWSSignatureVerificationFailed) continue;
        throw unauthenticated();
      }
      return { claims: accessClaims(claims as Record<string, unknown>, digest), key: candidate };
    }
    throw unauthenticated();
  }
}

/** The header `typ` of the auth service's access tokens (RFC 9068). */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

/** What an access token must name besides its signature: the auth service's issuer and this service's audience. */
export interface AccessTokenExpectations {
  /**
   * The auth service's `ISSUER`; a token with another `iss` is refused. A function is asked when
   * a token is verified locally (the issuer read from the auth service's discovery document).
   */
  issuer?: string | (() => Promise<string>);
  /** The `aud` this service accepts; default the issuer (the auth service's default audience). */
  audience?: string;
  /**
   * This service's resource identifier (RFC 8707, `protectedResource.resource`): without an
   * `audience`, a token for it is accepted beside one for the issuer.
   */
  resource?: string;
  /** Accept an access token whatever its `aud` (the auth service's introspection and revocation do). */
  anyAudience?: boolean;
}

function accessClaims(claims: Record<string, unknown>, digest: string): VerifiedAccessToken {
  if (
    claims.token_type !== 'access' ||
    typeof claims.iss !== 'string' ||
    typeof claims.sub !== 'string' ||
    typeof claims.sid !== 'string' ||
    !hasValidTimes(claims)
  ) {
    throw unauthenticated();
  }
  // Frozen: one object answers every request of the token (see AccessTokenVerifier).
  return Object.freeze({
    userId: claims.sub,
    kind: callerKindOf(claims),
    sessionId: claims.sid,
    email: typeof claims.email === 'string' ? claims.email : '',
    ...(typeof claims.client_id === 'string' ? { clientId: claims.client_id } : {}),
    ...(typeof claims.org_id === 'string' ? { organizationId: claims.org_id } : {}),
    digest,
    expiresAt: (claims.exp as number) * 1000,
    issuedAt: claims.iat as number,
    ...stepUpClaims(claims),
  });
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
