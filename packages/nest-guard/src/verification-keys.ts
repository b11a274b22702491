import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors,
  type JSONWebKeySet,
  type JWK,
  type JWSHeaderParameters,
} from 'jose';
import { createHash, createPublicKey, createSecretKey, KeyObject, type webcrypto } from 'node:crypto';

type CryptoKey = webcrypto.CryptoKey;

/** The algorithms the auth service signs with (`JWT_ALGORITHM`). */
export type TokenAlgorithm = 'HS256' | 'ES256' | 'EdDSA';
export const TOKEN_ALGORITHMS: readonly TokenAlgorithm[] = ['HS256', 'ES256', 'EdDSA'];

/** One key and the one algorithm it may verify: a key is never tried with another algorithm. */
export interface VerificationKey {
  kid: string;
  algorithm: TokenAlgorithm;
  /** A Node key, or a WebCrypto key as jose's remote key set gives them. */
  key: KeyObject | CryptoKey;
  /** The instant (ms since the epoch) from which the key verifies nothing (a retired secret's end). */
  validUntil?: number;
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
export function secretVerificationKey(secret: string): VerificationKey & { key: KeyObject } {
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
export function publicVerificationKey(pem: string | KeyObject): VerificationKey & { key: KeyObject } {
  const key = typeof pem === 'string' ? createPublicKey(pem) : pem.type === 'private' ? createPublicKey(pem) : pem;
  return { kid: keyThumbprint(key), algorithm: algorithmOfKey(key), key };
}

const joseKeys = new WeakMap<KeyObject, CryptoKey>();

/**
 * The key as jose uses it fastest: an HMAC secret as a CryptoKey made once, since jose imports a
 * secret KeyObject's bytes anew on every call; other keys as they are (jose keeps their conversion).
 */
export function joseKey(key: KeyObject | CryptoKey): KeyObject | CryptoKey {
  if (!(key instanceof KeyObject) || key.type !== 'secret') return key;
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

type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>;

/**
 * The auth service's published keys (`/.well-known/jwks.json`), through jose's remote key set:
 * fetched once, again after five minutes, and at once when a token names a `kid` not yet known (a
 * rotation), at most every 30 s so forged `kid`s cannot turn into a flood of fetches; concurrent
 * requests share one fetch. Only EC P-256 and Ed25519 public keys are taken (a shared secret is
 * never published, so HS256 tokens are left to introspection, and an entry with a private part is
 * dropped); keys fetched before stay in use while the service is briefly unreachable.
 */
export class JwksKeySource implements KeySource {
  private readonly remote: RemoteKeySet;
  /** The last set fetched, as a local key set, for while a refetch fails. */
  private fallback: { jwks: JSONWebKeySet; keys: ReturnType<typeof createLocalJWKSet> } | undefined;

  constructor(url: string, timeoutMs: number, fetchImpl: FetchLike = globalThis.fetch as unknown as FetchLike) {
    this.remote = createRemoteJWKSet(new URL(url), {
      timeoutDuration: timeoutMs,
      cacheMaxAge: JWKS_MAX_AGE_MS,
      cooldownDuration: JWKS_REFETCH_COOLDOWN_MS,
      [customFetch]: async (href: string, init: { headers: Headers; signal: AbortSignal }) => {
        const response = await fetchImpl(href, { headers: Object.fromEntries(init.headers), signal: init.signal });
        return { status: response.status, json: async () => publishedSigningKeys(await response.json()) };
      },
    } as unknown as Parameters<typeof createRemoteJWKSet>[1]);
  }

  async candidates(algorithm: string, kid: string | undefined): Promise<VerificationKey[] | null> {
    if (algorithm !== 'ES256' && algorithm !== 'EdDSA') return null;
    const header = { alg: algorithm as 'ES256' | 'EdDSA', ...(kid !== undefined ? { kid } : {}) };
    try {
      return await keysFor(this.remote, header);
    } catch (error) {
      if (!(error instanceof KeysUnavailableError)) throw error;
      // The set could not be (re)fetched: the keys fetched before answer meanwhile.
      const last = this.remote.jwks();
      if (!last) throw error;
      if (this.fallback?.jwks !== last) this.fallback = { jwks: last, keys: createLocalJWKSet(last) };
      return keysFor(this.fallback.keys, header);
    }
  }
}

/**
 * The keys of a (remote or local) jose key set for a token's header: one, or each of several
 * that match a token without `kid`; null when none does (a kid not published yet, or forged: the
 * auth service's introspection decides). A set that cannot be read is KeysUnavailableError.
 */
async function keysFor(
  set: (header: JWSHeaderParameters) => Promise<CryptoKey>,
  header: { alg: 'ES256' | 'EdDSA'; kid?: string },
): Promise<VerificationKey[] | null> {
  const found = (key: CryptoKey): VerificationKey => ({ kid: header.kid ?? '', algorithm: header.alg, key });
  try {
    return [found(await set(header))];
  } catch (error) {
    if (error instanceof errors.JWKSNoMatchingKey) return null;
    if (error instanceof errors.JWKSMultipleMatchingKeys) {
      const keys: VerificationKey[] = [];
      for await (const key of error as unknown as AsyncIterable<CryptoKey>) keys.push(found(key));
      return keys;
    }
    throw new KeysUnavailableError(`The auth service's keys could not be fetched: ${(error as Error).message}`);
  }
}

/** The entries of a fetched JWKS the guard may verify with: EC P-256 and Ed25519 public keys that have a `kid`. */
function publishedSigningKeys(body: unknown): unknown {
  const listed = (body as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(listed)) return body;
  return {
    keys: (listed as JWK[]).filter(
      (jwk) =>
        jwk !== null &&
        typeof jwk === 'object' &&
        typeof jwk.kid === 'string' &&
        !('d' in jwk) &&
        ((jwk.kty === 'EC' && jwk.crv === 'P-256') || (jwk.kty === 'OKP' && jwk.crv === 'Ed25519')),
    ),
  };
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
