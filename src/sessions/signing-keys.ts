import {
  algorithmOfKey,
  joseKey,
  keyThumbprint,
  publicVerificationKey,
  secretVerificationKey,
  StaticKeySource,
  type KeySource,
  type TokenAlgorithm,
  type VerificationKey,
} from '@auth-rbac/nest-guard/internal';
import { Injectable, Logger } from '@nestjs/common';
import { errors, exportJWK, jwtVerify, SignJWT, type JWK, type JWTPayload } from 'jose';
import { createPrivateKey, createSecretKey, generateKeyPairSync, hkdfSync, KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppConfig, ConfigurationError } from '../config/app-config.js';
import { signHs256 } from './hs256.js';

/** The three JWTs of the service, told apart by their header's `typ` and their `aud`. */
export type TokenUse = 'access' | 'refresh' | '2fa';

/**
 * The header `typ` of each token: `at+jwt` marks the access token (RFC 9068), the only one a
 * standard verifier should accept; the other two carry types no such verifier expects.
 */
export const TOKEN_HEADER_TYPES: Readonly<Record<TokenUse, string>> = {
  access: 'at+jwt',
  refresh: 'refresh+jwt',
  '2fa': '2fa+jwt',
};

/**
 * The `aud` of each token: access tokens name the issuer itself (unless a client asked for another
 * audience); refresh and temp tokens name the one endpoint that takes them, so a verifier that
 * checks the audience of an access token refuses them even when it shares the HS256 secret.
 */
export function audienceOf(issuer: string, use: Exclude<TokenUse, 'access'>): string {
  return use === 'refresh' ? `${issuer}/api/auth/refresh` : `${issuer}/api/auth/otp/verify-2fa`;
}

const INTERNAL_KEY_INFO = 'auth-rbac internal tokens (refresh, second factor)';

/**
 * The HS256 key of refresh and temp tokens under ES256/EdDSA: derived (HKDF-SHA256) from
 * JWT_SECRET, or from the private key when JWT_SECRET was not configured (development). It is
 * never published: a verifier configured with the JWKS finds no key for these tokens.
 */
export function internalKeyOf(material: Buffer | string): VerificationKey {
  const ikm = typeof material === 'string' ? Buffer.from(material, 'utf8') : material;
  const key = createSecretKey(Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), INTERNAL_KEY_INFO, 32)));
  return { kid: keyThumbprint(key), algorithm: 'HS256', key };
}

/** Where a private key lives when JWT_PRIVATE_KEY is not given: the file, and its retired keys beside it. */
export function privateKeyFileOf(config: AppConfig): string {
  return (
    config.signing.privateKeyFile ??
    path.join(config.database.dataDir, `jwt-${config.signing.algorithm.toLowerCase()}-private-key.pem`)
  );
}

export function previousKeysFileOf(privateKeyFile: string): string {
  return `${privateKeyFile}.previous`;
}

/** A fresh private key of the algorithm, as PKCS#8 PEM. */
export function generatePrivateKeyPem(algorithm: Exclude<TokenAlgorithm, 'HS256'>): string {
  const { privateKey } =
    algorithm === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

/** Writes a secret file readable by its owner only, replacing any earlier one in one step. */
export function writePrivateFile(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/**
 * Retired public keys written by `rotate-keys`: PEM blocks, each after a `# retired <epoch ms>`
 * line. A key retired longer ago than the longest token lifetime has no live token left and is
 * dropped from verification and from the JWKS.
 */
export function readRetiredKeys(file: string, maxTokenLifetimeMs: number, now = Date.now()): string[] {
  if (!existsSync(file)) return [];
  const kept: string[] = [];
  for (const match of readFileSync(file, 'utf8').matchAll(
    /# retired (\d+)\s+(-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----)/g,
  )) {
    if (Number(match[1]) + maxTokenLifetimeMs > now) kept.push(match[2]);
  }
  return kept;
}

/**
 * The service's token keys (`JWT_ALGORITHM`): the one that signs, and every key that still
 * verifies (the current one, JWT_PREVIOUS_SECRETS or JWT_PREVIOUS_PUBLIC_KEYS, and keys retired by
 * `rotate-keys`). Every token header carries `kid`, so a verifier picks its key without trying
 * others, and each key verifies only with its own algorithm: a public key is never an HMAC secret.
 */
@Injectable()
export class SigningKeys implements KeySource {
  readonly algorithm: TokenAlgorithm;
  readonly issuer: string;
  private readonly signingKey: KeyObject;
  private readonly kid: string;
  private readonly verification: StaticKeySource;
  private readonly publicKeys: VerificationKey[];
  /** Refresh and temp tokens: the signing secret under HS256, an unpublished derived key otherwise. */
  private readonly internalKey: VerificationKey;
  private readonly internalVerification: StaticKeySource;
  /** Each retired HS256 secret's key (and the key derived from it), and the moment (epoch ms) after which it verifies nothing. */
  private readonly retiredSecretEnds = new Map<VerificationKey, number>();

  constructor(config: AppConfig) {
    this.algorithm = config.signing.algorithm;
    this.issuer = config.http.issuer;
    // A retired secret verifies for REFRESH_TOKEN_EXPIRY after its retirement (the longest any token
    // it signed can live), then nothing: a leaked secret ends. One written without its retirement
    // time (refused in production) counts as retired when this process started.
    const startedAt = Date.now();
    const retire = (key: VerificationKey, retiredAt: number | null): VerificationKey => {
      const retiredMs = retiredAt === null ? startedAt : retiredAt * 1000;
      this.retiredSecretEnds.set(key, retiredMs + config.jwt.refreshTokenTtl * 1000);
      return key;
    };
    const previousSecrets = config.signing.previousSecrets.map(({ secret, retiredAt }) =>
      retire(secretVerificationKey(secret), retiredAt),
    );
    let previousPublic: VerificationKey[];
    try {
      const retired = config.signing.privateKeyPem
        ? []
        : readRetiredKeys(previousKeysFileOf(privateKeyFileOf(config)), config.jwt.refreshTokenTtl * 1000);
      previousPublic = [...config.signing.previousPublicKeys, ...retired].map((pem) => publicVerificationKey(pem));
    } catch (error) {
      throw new ConfigurationError(
        `JWT_PREVIOUS_PUBLIC_KEYS holds a key that cannot be read: ${(error as Error).message}`,
      );
    }
    if (this.algorithm === 'HS256') {
      const current = secretVerificationKey(config.jwt.secret);
      this.signingKey = current.key;
      this.kid = current.kid;
      this.publicKeys = previousPublic;
      this.verification = new StaticKeySource([current, ...previousSecrets, ...previousPublic]);
      this.internalKey = current;
      this.internalVerification = new StaticKeySource([current, ...previousSecrets]);
    } else {
      this.signingKey = loadPrivateKey(config);
      const current = publicVerificationKey(this.signingKey);
      if (current.algorithm !== this.algorithm) {
        throw new ConfigurationError(
          `JWT_PRIVATE_KEY is not a key for ${this.algorithm} (P-256 for ES256, Ed25519 for EdDSA).`,
        );
      }
      this.kid = current.kid;
      this.publicKeys = [current, ...previousPublic.filter((key) => key.kid !== current.kid)];
      // Tokens of the HS256 secret that was in use before stay valid through JWT_PREVIOUS_SECRETS only.
      this.verification = new StaticKeySource([...this.publicKeys, ...previousSecrets]);
      this.internalKey = internalKeyOf(
        config.jwt.secretWasGenerated ? this.signingKey.export({ format: 'der', type: 'pkcs8' }) : config.jwt.secret,
      );
      this.internalVerification = new StaticKeySource([
        this.internalKey,
        ...config.signing.previousSecrets.map(({ secret, retiredAt }) => retire(internalKeyOf(secret), retiredAt)),
      ]);
    }
  }

  /** The `kid` of the key that signs now. */
  get currentKid(): string {
    return this.kid;
  }

  /**
   * Signs claims of one use for `ttlSeconds`, with `iss`, `aud`, `iat`, `exp` and the header's
   * `typ` and `kid`. Access tokens are signed with the published key; refresh and temp tokens
   * with the internal key (the same secret under HS256, an unpublished one otherwise).
   */
  sign(claims: JWTPayload, ttlSeconds: number, use: TokenUse, audience = this.issuer): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const [algorithm, kid, key] =
      use === 'access'
        ? [this.algorithm, this.kid, this.signingKey]
        : [this.internalKey.algorithm, this.internalKey.kid, this.internalKey.key];
    const header = { alg: algorithm, typ: TOKEN_HEADER_TYPES[use], kid };
    const tokenAudience = use === 'access' ? audience : audienceOf(this.issuer, use);
    // HMAC keys are signed in process (see signHs256); asymmetric ones by jose.
    if (algorithm === 'HS256' && key instanceof KeyObject) {
      const payload = { ...claims, iss: this.issuer, aud: tokenAudience, iat: now, exp: now + ttlSeconds };
      return Promise.resolve(signHs256(header, payload, key));
    }
    return new SignJWT(claims)
      .setProtectedHeader(header)
      .setIssuer(this.issuer)
      .setAudience(tokenAudience)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(joseKey(key));
  }

  /**
   * A Security Event Token (RFC 8417): a JWS of the signing key with `typ: secevent+jwt`, so it
   * can never pass for an access token (no `token_type`, no `exp`) nor one for it.
   */
  signSecurityEvent(claims: JWTPayload): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: this.algorithm, typ: 'secevent+jwt', kid: this.kid })
      .setIssuedAt()
      .sign(joseKey(this.signingKey));
  }

  candidates(algorithm: string, kid: string | undefined): Promise<VerificationKey[]> {
    return this.unexpired(this.verification, algorithm, kid);
  }

  /**
   * The keys of a source for a token's header, without retired secrets past their end; a retired
   * secret says when it ends (`validUntil`), so no verifier keeps what it verified past that.
   */
  private async unexpired(
    source: StaticKeySource,
    algorithm: string,
    kid: string | undefined,
  ): Promise<VerificationKey[]> {
    const now = Date.now();
    const keys: VerificationKey[] = [];
    for (const key of await source.candidates(algorithm, kid)) {
      const end = this.retiredSecretEnds.get(key);
      if (end === undefined) keys.push(key);
      else if (end > now) keys.push({ ...key, validUntil: end });
    }
    return keys;
  }

  /**
   * The claims of a token of one use signed by one of its keys, with its `typ`, `iss` and `aud`;
   * throws for anything else. `ignoreExpiration`
   * is for the one caller that tells an expired temp token apart from a forged one.
   */
  async verify(
    token: string,
    use: TokenUse,
    options: { ignoreExpiration?: boolean } = {},
  ): Promise<Record<string, unknown>> {
    const { alg, kid } = decodeHeader(token);
    const source = use === 'access' ? this.verification : this.internalVerification;
    for (const candidate of await this.unexpired(source, alg, kid)) {
      try {
        const { payload } = await jwtVerify(token, joseKey(candidate.key), {
          algorithms: [candidate.algorithm],
          typ: TOKEN_HEADER_TYPES[use],
          issuer: this.issuer,
          audience: use === 'access' ? this.issuer : audienceOf(this.issuer, use),
          ...(options.ignoreExpiration ? { currentDate: new Date(0) } : {}),
        });
        return payload as Record<string, unknown>;
      } catch (error) {
        if (!(error instanceof errors.JWSSignatureVerificationFailed)) throw error;
      }
    }
    throw new Error('no key verifies the token');
  }

  /** The JWKS (RFC 7517): public keys only, so `{"keys": []}` under HS256. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const keys = await Promise.all(
      this.publicKeys.map(async ({ kid, algorithm, key }) => ({
        ...(await exportJWK(key)),
        kid,
        alg: algorithm,
        use: 'sig',
      })),
    );
    return { keys };
  }
}

function decodeHeader(token: string): { alg: string; kid: string | undefined } {
  const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
  if (typeof header.alg !== 'string' || (header.kid !== undefined && typeof header.kid !== 'string'))
    throw new Error('bad header');
  return { alg: header.alg, kid: header.kid as string | undefined };
}

const logger = new Logger('SigningKeys');

/** JWT_PRIVATE_KEY, else JWT_PRIVATE_KEY_FILE, else (outside production) a key generated once under DATA_DIR. */
function loadPrivateKey(config: AppConfig): KeyObject {
  let pem = config.signing.privateKeyPem;
  if (!pem) {
    const file = privateKeyFileOf(config);
    if (!existsSync(file)) {
      if (config.isProduction || config.signing.privateKeyFile) {
        throw new ConfigurationError(
          config.signing.privateKeyFile
            ? `JWT_PRIVATE_KEY_FILE ${file} does not exist.`
            : `JWT_ALGORITHM=${config.signing.algorithm} needs JWT_PRIVATE_KEY or JWT_PRIVATE_KEY_FILE in production.`,
        );
      }
      writePrivateFile(file, generatePrivateKeyPem(config.signing.algorithm as Exclude<TokenAlgorithm, 'HS256'>));
      logger.warn(`A ${config.signing.algorithm} signing key was generated and kept in ${file}.`);
    }
    pem = readFileSync(file, 'utf8');
  }
  try {
    const key = createPrivateKey(pem);
    algorithmOfKey(key);
    return key;
  } catch (error) {
    throw new ConfigurationError(
      `JWT_PRIVATE_KEY cannot be read as a P-256 or Ed25519 private key: ${(error as Error).message}`,
    );
  }
}
