import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { randomBytes } from 'node:crypto';
import { digestsEqual, sha256Hex } from '../common/token-hash.js';
import { AppConfig } from '../config/app-config.js';
import { ServiceClientsRepository } from './service-clients.repository.js';

/** How long a stored client's secret hash is reused before it is read again (a re-keyed client's old secret works at most this long). */
const STORED_CLIENT_CACHE_MS = 30_000;
const CLIENT_ID = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * The services allowed to introspect: SERVICE_CLIENTS (`id:secret`) and clients made by
 * `create-client` (stored as the secret's SHA-256). Secrets are compared as SHA-256 digests in
 * constant time, and an unknown client costs the same comparison, so neither the id nor the
 * secret can be found by timing.
 */
@Injectable()
export class ServiceClientsService {
  private readonly configured: Map<string, string>;
  /** Unknown ids are remembered too (as null), against a flood of lookups; bounded by count and age. */
  private readonly stored = new LRUCache<string, { secretHash: string | null }>({
    max: 10_000,
    ttl: STORED_CLIENT_CACHE_MS,
  });

  constructor(
    config: AppConfig,
    private readonly clients: ServiceClientsRepository,
  ) {
    this.configured = new Map(config.introspection.clients.map(({ id, secret }) => [id, sha256Hex(secret)]));
  }

  /** The client id when the credentials are right, else null. */
  async authenticate(clientId: string, secret: string): Promise<string | null> {
    const expected = CLIENT_ID.test(clientId)
      ? (this.configured.get(clientId) ?? (await this.storedHash(clientId)))
      : null;
    const matches = digestsEqual(sha256Hex(secret), expected ?? UNKNOWN_CLIENT_HASH);
    return matches && expected !== null ? clientId : null;
  }

  /** Whether the id names a client (SERVICE_CLIENTS or stored). */
  async exists(clientId: string): Promise<boolean> {
    if (!CLIENT_ID.test(clientId)) return false;
    return this.configured.has(clientId) || (await this.storedHash(clientId)) !== null;
  }

  /** Creates (or re-keys) a stored client and returns its new secret, which is never stored. */
  async create(clientId: string): Promise<string> {
    assertClientId(clientId);
    const secret = randomBytes(32).toString('base64url');
    if (!(await this.clients.insert(clientId, sha256Hex(secret)))) {
      throw new Error(
        `Client ${clientId} already exists; its secret is unchanged. To replace it on purpose: ` +
          `npm run cli -- create-client ${clientId} --rotate-secret`,
      );
    }
    this.stored.delete(clientId);
    return secret;
  }

  /** A new secret for a stored client; the old one stops working (within STORED_CLIENT_CACHE_MS on running instances). */
  async rotateSecret(clientId: string): Promise<string> {
    assertClientId(clientId);
    const secret = randomBytes(32).toString('base64url');
    if (!(await this.clients.replaceSecret(clientId, sha256Hex(secret)))) {
      throw new Error(`Client ${clientId} does not exist: create it without --rotate-secret.`);
    }
    this.stored.delete(clientId);
    return secret;
  }

  private async storedHash(clientId: string): Promise<string | null> {
    const cached = this.stored.get(clientId);
    if (cached) return cached.secretHash;
    const secretHash = await this.clients.findSecretHashByClientId(clientId);
    this.stored.set(clientId, { secretHash });
    return secretHash;
  }
}

function assertClientId(clientId: string): void {
  if (!CLIENT_ID.test(clientId))
    throw new Error('A client id is 1 to 100 letters, digits, dots, dashes or underscores.');
}

/** Compared against when the client is unknown, so that path takes as long as a wrong secret. */
const UNKNOWN_CLIENT_HASH = sha256Hex(randomBytes(32).toString('hex'));
