import { Injectable, type OnModuleInit } from '@nestjs/common';
import { calculateJwkThumbprint, exportJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { AppConfig } from '../config/app-config.js';
import { Transactions } from '../infra/database/transactions.js';
import { resealEach, type ResealReport } from '../infra/keys/index.js';
import { PublishedKeys } from '../sessions/index.js';
import { KeySealing } from './key-sealing.js';
import { ProviderSigningKeysRepository, type ProviderKeyRow } from './signing-keys.repository.js';

/** ID tokens are RS256 (OpenID Connect's default): any relying party verifies them without a shared secret. */
export const ID_TOKEN_ALGORITHM = 'RS256';

/** How long an instance keeps the keys it read: a rotation reaches every instance within this. */
const CACHE_MS = 60_000;

interface LoadedKeys {
  current: ProviderKeyRow;
  jwks: JWK[];
  loadedAt: number;
}

/**
 * The provider's ID-token keys, kept in PostgreSQL so every instance signs with the same key: an
 * RSA key generated once (its private half sealed, see KeySealing), rotated by `rotate-keys`,
 * with a retired key kept in the JWKS until the ID tokens and logout tokens it signed have
 * expired (ACCESS_TOKEN_EXPIRY, plus this cache's minute).
 */
@Injectable()
export class IdTokenKeys implements OnModuleInit {
  private loaded: Promise<LoadedKeys> | null = null;
  /** The opened private key of the current row, by `kid`. */
  private opened: { kid: string; key: KeyObject } | null = null;

  constructor(
    private readonly repository: ProviderSigningKeysRepository,
    private readonly sealing: KeySealing,
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
    private readonly published: PublishedKeys,
  ) {}

  onModuleInit(): void {
    this.published.add(async () => (await this.keys()).jwks);
  }

  /** Signs a JWT of the provider (an ID token, a logout token) with the current key. */
  async sign(claims: JWTPayload, ttlSeconds: number, typ = 'JWT'): Promise<string> {
    const { current } = await this.keys();
    // Opened only to sign: the JWKS needs no private key, so it answers whatever the secrets.
    if (this.opened?.kid !== current.kid) {
      this.opened = {
        kid: current.kid,
        key: createPrivateKey(this.sealing.open(current.privateKeySealed, current.kid)),
      };
    }
    const signing = this.opened;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ID_TOKEN_ALGORITHM, typ, kid: signing.kid })
      .setIssuer(this.config.http.issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(signing.key);
  }

  /** The public keys a relying party verifies ID tokens with (current and recently retired). */
  async publicKeys(): Promise<JWK[]> {
    return (await this.keys()).jwks;
  }

  /** A new current key; the old one stays published. Answers the new key's `kid`. */
  async rotate(): Promise<string> {
    const row = await this.newKeyRow();
    await this.transactions.run((manager) => this.repository.rotate(manager, row));
    this.loaded = null;
    return row.kid;
  }

  /**
   * Seals every key's private half (retired ones too) under the data key ring's first key, so the
   * keys that sealed them before may be dropped (`rotate-data-key`).
   */
  async resealKeys(): Promise<ResealReport> {
    // A row replaced meanwhile was re-sealed by another run.
    const report = await resealEach(
      await this.repository.findAll(),
      (row) => this.sealing.openWith(row.privateKeySealed, row.kid),
      (row, opened) =>
        this.repository.replaceSealed(row.kid, row.privateKeySealed, this.sealing.seal(opened.plaintext, row.kid)),
    );
    this.loaded = null;
    return report;
  }

  private keys(): Promise<LoadedKeys> {
    const current = this.loaded;
    if (current) {
      return current.then((keys) => (Date.now() - keys.loadedAt < CACHE_MS ? keys : this.reload()));
    }
    return this.reload();
  }

  private reload(): Promise<LoadedKeys> {
    const loading = this.load().catch((error: unknown) => {
      if (this.loaded === loading) this.loaded = null;
      throw error;
    });
    this.loaded = loading;
    return loading;
  }

  private async load(): Promise<LoadedKeys> {
    const retiredSince = new Date(Date.now() - (this.config.jwt.accessTokenTtl * 1000 + CACHE_MS));
    let rows = await this.repository.findPublished(ID_TOKEN_ALGORITHM, retiredSince);
    if (!rows.some((row) => row.retiredAt === null)) {
      await this.repository.insertIfNoCurrent(await this.newKeyRow());
      rows = await this.repository.findPublished(ID_TOKEN_ALGORITHM, retiredSince);
    }
    const current = rows.find((row) => row.retiredAt === null);
    if (!current) throw new Error('No current ID-token signing key');
    return {
      current,
      jwks: await Promise.all(rows.map(publishedJwk)),
      loadedAt: Date.now(),
    };
  }

  private async newKeyRow(): Promise<Pick<ProviderKeyRow, 'kid' | 'algorithm' | 'privateKeySealed' | 'publicKeyPem'>> {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const kid = await calculateJwkThumbprint(await exportJWK(publicKey));
    return {
      kid,
      algorithm: ID_TOKEN_ALGORITHM,
      privateKeySealed: this.sealing.seal(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), kid),
      publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    };
  }
}

async function publishedJwk(row: ProviderKeyRow): Promise<JWK> {
  return { ...(await exportJWK(createPublicKey(row.publicKeyPem))), kid: row.kid, alg: row.algorithm, use: 'sig' };
}
