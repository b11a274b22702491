import type { JWK } from 'jose';
import { createHash, createPublicKey, createSecretKey, type KeyObject, type webcrypto } from 'node:crypto';

/** The algorithms the auth service signs with (`JWT_ALGORITHM`). */
export type TokenAlgorithm = 'HS256' | 'ES256' | 'EdDSA';
export const TOKEN_ALGORITHMS: readonly TokenAlgorithm[] = ['HS256', 'ES256', 'EdDSA'];

/** One key and the one algorithm it may verify: a key is never tried with another algorithm. */
export interface VerificationKey {
  kid: string;
  algorithm: TokenAlgorithm;
  key: KeyObject;
}

/** The keys are not known and cannot be fetched now: the request is answered 503, never let through. */
export class KeysUnavailableError extends Error {}

/**
 * Where the verifier finds the keys for a token's header. `[]`: no key could have signed it
 * (401). `null`: this source publishes no keys for that algorithm, so it cannot decide locally.
 */
export interface KeySource {
  candidates(algorithm: string, kid: string | undefined): Promise<VerificationKey[] | null>;
}

/**
 * The RFC 7638 thumbprint of a key's public part (or of an HMAC secret): a `kid` that every
 * holder of the same key computes alike, with nothing to store. For a secret of 32 or more random
 * bytes its SHA-256 reveals nothing usable.
 */
export function keyThumbprint(key: KeyObject): string {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' }) as Record<string, string>;
  const members: Record<string, string[]> = {
    oct: ['k', 'kty'],
    EC: ['crv', 'kty', 'x', 'y'],
    OKP: ['crv', 'kty', 'x'],
  };
  const names = members[jwk.kty];
  if (!names) throw new Error(`Unsupported key type ${jwk.kty}.`);
  const canonical = `{${names.map((name) => `${JSON.stringify(name)}:${JSON.stringify(jwk[name])}`).join(',')}}`;
  return createHash('sha256').update(canonical).digest('base64url');
}

/** An HS256 secret: its UTF-8 bytes are the HMAC key, as the auth service signs. */
export function secretVerificationKey(secret: string): VerificationKey {
  if (typeof secret !== 'string' || secret.length === 0)
    throw new Error('AuthGuardModule: a JWT secret must be a non-empty string.');
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  return { kid: keyThumbprint(key), algorithm: 'HS256', key };
}

/** The algorithm an asymmetric key signs with: P-256 is ES256, Ed25519 is EdDSA; nothing else. */
export function algorithmOfKey(key: KeyObject): Exclude<TokenAlgorithm, 'HS256'> {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error('Only P-256 (ES256) and Ed25519 (EdDSA) keys are supported.');
}

/** A public key in PEM (a private one is reduced to its public part). */
export function publicVerificationKey(pem: string | KeyObject): VerificationKey {
  const key = typeof pem === 'string' ? createPublicKey(pem) : pem.type === 'private' ? createPublicKey(pem) : pem;
  return { kid: keyThumbprint(key), algorithm: algorithmOfKey(key), key };
}

const joseKeys = new WeakMap<KeyObject, webcrypto.CryptoKey>();

/**
 * The key as jose uses it fastest: an HMAC secret as a CryptoKey made once, since jose imports a
 * secret KeyObject's bytes anew on every call; other keys as they are (jose keeps their conversion).
 */
export function joseKey(key: KeyObject): KeyObject | webcrypto.CryptoKey {
  if (key.type !== 'secret') return key;
  let cryptoKey = joseKeys.get(key);
  if (!cryptoKey) {
    cryptoKey = key.toCryptoKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    joseKeys.set(key, cryptoKey);
  }
  return cryptoKey;
}

/** A fixed set of keys: the shared secret(s) or public keys configured in the importing service. */
export class StaticKeySource implements KeySource {
  constructor(private readonly keys: readonly VerificationKey[]) {}

  async candidates(algorithm: string, kid: string | undefined): Promise<VerificationKey[]> {
    // A token without `kid` was signed before keys had ids: every key of its algorithm may try.
    return this.keys.filter((key) => key.algorithm === algorithm && (kid === undefined || key.kid === kid));
  }
}

export type FetchLike = (
  url: string,
  init: { method?: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
) => Promise<{ status: number; ok: boolean; json(): Promise<unknown> }>;

/** How long a fetched key set is used before it is fetched again, and how often an unknown `kid` may refetch it. */
const JWKS_MAX_AGE_MS = 5 * 60_000;
const JWKS_REFETCH_COOLDOWN_MS = 30_000;

/**
 * The auth service's published keys (`/.well-known/jwks.json`), fetched once, again after five
 * minutes, and at once when a token names a `kid` not yet known (a rotation), at most every 30 s
 * so forged `kid`s cannot turn into a flood of fetches. Only EC P-256 and Ed25519 public keys are taken; a
 * shared secret is never published, so HS256 tokens are left to introspection.
 */
export class JwksKeySource implements KeySource {
  private keys: VerificationKey[] | undefined;
  private fetchedAt = 0;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly fetchImpl: FetchLike = globalThis.fetch as unknown as FetchLike,
    private readonly now: () => number = Date.now,
  ) {}

  async candidates(algorithm: string, kid: string | undefined): Promise<VerificationKey[] | null> {
    if (!this.keys || this.now() - this.fetchedAt > JWKS_MAX_AGE_MS) await this.refresh();
    if (algorithm === 'HS256') return null;
    let found = this.match(algorithm, kid);
    if (found.length === 0 && kid !== undefined && this.now() - this.fetchedAt > JWKS_REFETCH_COOLDOWN_MS) {
      await this.refresh();
      found = this.match(algorithm, kid);
    }
    // A kid not published yet (a key rotated in since the last fetch) or a forged one: the auth
    // service's introspection decides, so a new key's tokens work at once and forgeries are refused.
    return found.length > 0 ? found : null;
  }

  private match(algorithm: string, kid: string | undefined): VerificationKey[] {
    return (this.keys ?? []).filter((key) => key.algorithm === algorithm && (kid === undefined || key.kid === kid));
  }

  private refresh(): Promise<void> {
    // Concurrent requests that need the keys share one fetch.
    this.pending ??= this.load().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async load(): Promise<void> {
    let body: unknown;
    try {
      const response = await this.fetchImpl(this.url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      body = await response.json();
    } catch (error) {
      // Keys fetched before stay in use while the service is briefly unreachable.
      if (this.keys) return;
      throw new KeysUnavailableError(`The auth service's keys could not be fetched: ${(error as Error).message}`);
    }
    const listed = (body as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(listed)) {
      if (this.keys) return;
      throw new KeysUnavailableError('The auth service answered its JWKS with an unexpected body.');
    }
    const keys: VerificationKey[] = [];
    for (const jwk of listed as JWK[]) {
      const algorithm =
        jwk.kty === 'EC' && jwk.crv === 'P-256' ? 'ES256' : jwk.kty === 'OKP' && jwk.crv === 'Ed25519' ? 'EdDSA' : null;
      if (!algorithm || typeof jwk.kid !== 'string' || 'd' in jwk) continue;
      try {
        const key = createPublicKey({
          key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as import('node:crypto').JsonWebKey,
          format: 'jwk',
        });
        keys.push({ kid: jwk.kid, algorithm, key });
      } catch {
        // A malformed entry is skipped; tokens of its kid are then refused.
      }
    }
    this.keys = keys;
    this.fetchedAt = this.now();
  }
}

/**
 * The auth service's issuer, read once from its discovery document
 * (`/.well-known/openid-configuration`) when the importing service did not name it: the `iss`
 * its tokens carry, whatever address this service reaches it at. Concurrent first look-ups share
 * one fetch; a failed fetch is tried again at the next token (503 meanwhile, never a pass).
 */
export class DiscoveredIssuer {
  private issuer: string | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly fetchImpl: FetchLike = globalThis.fetch as unknown as FetchLike,
  ) {}

  get(): Promise<string> {
    if (this.issuer !== undefined) return Promise.resolve(this.issuer);
    this.pending ??= this.load().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async load(): Promise<string> {
    let body: unknown;
    try {
      const response = await this.fetchImpl(this.url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      body = await response.json();
    } catch (error) {
      throw new KeysUnavailableError(
        `The auth service's discovery document could not be fetched: ${(error as Error).message}`,
      );
    }
    const issuer = (body as { issuer?: unknown } | null)?.issuer;
    if (typeof issuer !== 'string' || issuer.length === 0) {
      throw new KeysUnavailableError('The auth service answered its discovery document without an issuer.');
    }
    this.issuer = issuer;
    return issuer;
  }
}
