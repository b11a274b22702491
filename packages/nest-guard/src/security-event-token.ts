import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { joseKey, KeysUnavailableError, type KeySource } from './verification-keys.js';

/**
 * The event types of `GET /api/auth/events`, by the short name the stream's `event:` field
 * carries, and the URI that names them inside a Security Event Token's `events` claim (RFC 8417
 * §2.2). The first two are OpenID CAEP's.
 */
export const SECURITY_EVENT_URIS = {
  'session-revoked': 'https://schemas.openid.net/secevent/caep/event-type/session-revoked',
  'credential-change': 'https://schemas.openid.net/secevent/caep/event-type/credential-change',
  'assignment-change': 'urn:auth-rbac:secevent:assignment-change',
  'role-change': 'urn:auth-rbac:secevent:role-change',
  'keys-rotated': 'urn:auth-rbac:secevent:keys-rotated',
  /** Not a change: the stream could not replay what the reader missed; it must forget what it knows. */
  reset: 'urn:auth-rbac:secevent:reset',
} as const;

export type SecurityEventName = keyof typeof SECURITY_EVENT_URIS;

/** The JOSE `typ` of a Security Event Token (RFC 8417 §2.3): never that of an access token. */
export const SECURITY_EVENT_TOKEN_TYPE = 'secevent+jwt';

/** One verified event, as the guard acts on it. */
export type VerifiedSecurityEvent =
  | { name: 'session-revoked'; sid: string; sub: string }
  | { name: 'credential-change'; sub: string; notBefore: number }
  | { name: 'assignment-change'; sub: string }
  | { name: 'role-change'; role: string }
  | { name: 'keys-rotated' }
  | { name: 'reset' };

/** The `events` claim of a Security Event Token for one event. */
export function securityEventClaims(name: SecurityEventName, payload: Record<string, unknown>): JWTPayload {
  return { events: { [SECURITY_EVENT_URIS[name]]: payload } };
}

const NAME_OF_URI = new Map<string, SecurityEventName>(
  Object.entries(SECURITY_EVENT_URIS).map(([name, uri]) => [uri, name as SecurityEventName]),
);

/**
 * Verifies a Security Event Token of the auth service: a key of the KeySource chosen by `kid`
 * and restricted to its algorithm, `typ: secevent+jwt`, `iat`, `jti`, and exactly one known event
 * whose members have the right types. Null for anything else (unsigned, forged, malformed):
 * the caller ignores it and says so. A KeySource that cannot answer (the JWKS unreachable) throws.
 */
export async function verifySecurityEvent(jws: string, keys: KeySource): Promise<VerifiedSecurityEvent | null> {
  let header: { alg?: unknown; kid?: unknown; typ?: unknown };
  try {
    header = decodeProtectedHeader(jws);
  } catch {
    return null;
  }
  if (typeof header.alg !== 'string' || header.typ !== SECURITY_EVENT_TOKEN_TYPE) return null;
  if (header.kid !== undefined && typeof header.kid !== 'string') return null;
  let candidates;
  try {
    candidates = await keys.candidates(header.alg, header.kid as string | undefined);
  } catch (error) {
    if (error instanceof KeysUnavailableError) throw error;
    return null;
  }
  for (const candidate of candidates ?? []) {
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(jws, joseKey(candidate.key), {
        algorithms: [candidate.algorithm],
        typ: SECURITY_EVENT_TOKEN_TYPE,
      }));
    } catch (error) {
      if (error instanceof errors.JWSSignatureVerificationFailed) continue;
      return null;
    }
    return eventOf(claims);
  }
  return null;
}

function eventOf(claims: JWTPayload): VerifiedSecurityEvent | null {
  if (typeof claims.iat !== 'number' || typeof claims.jti !== 'string') return null;
  const events = claims.events as Record<string, unknown> | undefined;
  if (!events || typeof events !== 'object') return null;
  const uris = Object.keys(events);
  if (uris.length !== 1) return null;
  const name = NAME_OF_URI.get(uris[0]);
  const payload = events[uris[0]] as Record<string, unknown> | null;
  if (!name || !payload || typeof payload !== 'object') return null;
  const text = (key: string) =>
    typeof payload[key] === 'string' && payload[key] !== '' ? (payload[key] as string) : null;
  switch (name) {
    case 'session-revoked': {
      const sid = text('sid');
      const sub = text('sub');
      return sid && sub ? { name, sid, sub } : null;
    }
    case 'credential-change': {
      const sub = text('sub');
      const notBefore = payload.not_before;
      return sub && typeof notBefore === 'number' && Number.isFinite(notBefore) ? { name, sub, notBefore } : null;
    }
    case 'assignment-change': {
      const sub = text('sub');
      return sub ? { name, sub } : null;
    }
    case 'role-change': {
      const role = text('role');
      return role ? { name, role } : null;
    }
    default:
      return { name };
  }
}
