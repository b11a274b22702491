import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AppException } from '../common/app-exception.js';
import { digestsEqual, sha256Hex } from '../common/token-hash.js';
import { AppConfig } from '../config/app-config.js';
import { Transactions } from '../infra/database/transactions.js';
import { checkClientFields, CLIENT_ID, clientIdProblem, type ClientFields, type GrantType } from './client-rules.js';
import { ClientsRepository, type ClientRow } from './clients.repository.js';
import { matchesRegisteredUri, type ClientType } from './redirect-uris.js';

/**
 * A client of the service, from the registry or from SERVICE_CLIENTS (`source: "environment"`,
 * a confidential client with `client_credentials` and `refresh_token`, no redirect URI, not
 * editable through the API).
 */
export interface Client {
  clientId: string;
  name: string;
  type: ClientType;
  redirectUris: readonly string[];
  postLogoutRedirectUris: readonly string[];
  grantTypes: readonly GrantType[];
  firstParty: boolean;
  backchannelLogoutUri: string | null;
  dynamicallyRegistered: boolean;
  source: 'registry' | 'environment';
  createdAt: Date | null;
  updatedAt: Date | null;
}

/** A client just made or re-keyed, with its secret (confidential clients), which is never stored. */
export interface ClientWithSecret {
  client: Client;
  secret: string | null;
}

/** Called in the transaction that deletes a client, so that what hangs on its id (roles, tokens) goes with it. */
export type ClientDeletedListener = (manager: EntityManager, clientId: string) => Promise<void>;

/** Runs on a stored client's locked row before it changes (the privilege policy); throws to refuse. */
export type ClientCheck = (manager: EntityManager, client: Client) => Promise<void>;

/** How a client comes to be: the admin API, `create-client`, or dynamic registration (third-party). */
export type ClientOrigin = 'admin' | 'cli' | 'dynamic';

/**
 * The one client registry: lookups by id, secret verification, the redirect-URI rules, and the
 * writes of `service_clients`. Secrets are compared as SHA-256 digests in constant time, and an
 * unknown client (or a public one, which has no secret) costs the same comparison, so neither the
 * id nor the secret can be found by timing. No secret is cached: a new secret refuses the old one
 * at once, on every instance.
 */
@Injectable()
export class ClientsService {
  private readonly configured: Map<string, string>;
  private readonly deletedListeners: ClientDeletedListener[] = [];

  constructor(
    config: AppConfig,
    private readonly clients: ClientsRepository,
    private readonly transactions: Transactions,
  ) {
    this.configured = new Map(config.introspection.clients.map(({ id, secret }) => [id, sha256Hex(secret)]));
  }

  /** The client named by the id (registry or SERVICE_CLIENTS), or null. */
  async findById(clientId: string): Promise<Client | null> {
    if (typeof clientId !== 'string' || !CLIENT_ID.test(clientId)) return null;
    if (this.configured.has(clientId)) return environmentClient(clientId);
    const row = await this.clients.findByClientId(clientId);
    return row ? clientOf(row) : null;
  }

  /** Whether the id names a client (SERVICE_CLIENTS or stored). */
  async exists(clientId: string): Promise<boolean> {
    return (await this.findById(clientId)) !== null;
  }

  /** The client id when the credentials are right, else null (see `verify`). */
  async authenticate(clientId: string, secret: string): Promise<string | null> {
    return (await this.verify(clientId, secret))?.clientId ?? null;
  }

  /** The confidential client whose secret this is, else null; constant time whatever the reason. */
  async verify(clientId: string, secret: string): Promise<Client | null> {
    let expected: string | null = null;
    let client: Client | null = null;
    if (typeof clientId === 'string' && CLIENT_ID.test(clientId)) {
      const configured = this.configured.get(clientId);
      if (configured !== undefined) {
        expected = configured;
        client = environmentClient(clientId);
      } else {
        const row = await this.clients.findByClientId(clientId);
        expected = row?.secretHash ?? null;
        client = row ? clientOf(row) : null;
      }
    }
    const matches = digestsEqual(sha256Hex(typeof secret === 'string' ? secret : ''), expected ?? UNKNOWN_CLIENT_HASH);
    return matches && expected !== null ? client : null;
  }

  /** Whether a request's `redirect_uri` is registered for the client (exact; any port for a loopback URI). */
  matchesRedirectUri(client: Client, redirectUri: unknown): boolean {
    return matchesRegisteredUri(client.redirectUris, redirectUri);
  }

  /** Whether a `post_logout_redirect_uri` is registered for the client (the same rule). */
  matchesPostLogoutRedirectUri(client: Client, uri: unknown): boolean {
    return matchesRegisteredUri(client.postLogoutRedirectUris, uri);
  }

  allowsGrant(client: Client, grant: GrantType): boolean {
    return client.grantTypes.includes(grant);
  }

  /** A stored client (not one of SERVICE_CLIENTS, which the environment owns); 404 NOT_FOUND otherwise. */
  async getStored(clientId: string): Promise<Client> {
    const row = CLIENT_ID.test(clientId) ? await this.clients.findByClientId(clientId) : null;
    if (!row) throw clientNotFound();
    return clientOf(row);
  }

  /** A page of the stored clients, by id. */
  async list(limit: number, offset: number): Promise<{ items: Client[]; total: number }> {
    const { rows, total } = await this.clients.findPage(limit, offset);
    return { items: rows.map(clientOf), total };
  }

  /**
   * Registers a client (the admin API, dynamic registration): the contract's rules, a generated id
   * when none is given; 409 CONFLICT when the id is taken. Answers the secret of a confidential
   * client, shown once.
   */
  async register(
    clientId: string | undefined,
    fields: ClientFields,
    origin: Exclude<ClientOrigin, 'cli'>,
  ): Promise<ClientWithSecret> {
    const id = clientId ?? randomBytes(16).toString('base64url');
    const idProblem = clientIdProblem(id);
    const { problems, grantTypes } = checkClientFields(fields);
    if (idProblem) problems.unshift({ field: 'client_id', message: idProblem });
    if (origin === 'dynamic' && grantTypes.includes('client_credentials')) {
      problems.push({ field: 'grant_types', message: 'client_credentials is not for a dynamically registered client' });
    }
    if (problems.length > 0) throw new AppException('VALIDATION_FAILED', 'The request is invalid.', problems);
    if (this.configured.has(id)) throw clientIdTaken();
    const secret = fields.type === 'confidential' ? newSecret() : null;
    const row = await this.clients.insert({
      clientId: id,
      secretHash: secret === null ? null : sha256Hex(secret),
      name: fields.name.trim(),
      type: fields.type,
      redirectUris: fields.redirectUris,
      postLogoutRedirectUris: fields.postLogoutRedirectUris,
      grantTypes,
      firstParty: origin === 'dynamic' ? false : fields.firstParty,
      backchannelLogoutUri: fields.backchannelLogoutUri,
      dynamicallyRegistered: origin === 'dynamic',
    });
    if (!row) throw clientIdTaken();
    return { client: clientOf(row), secret };
  }

  /**
   * `create-client <id>`: creates the client with the fields given; an id that exists is refused,
   * its secret unchanged (`rotateSecret` replaces a secret on purpose). Without flags the client is what it has always been:
   * a confidential service client with `client_credentials` and `refresh_token`.
   */
  async createFromCli(clientId: string, fields: Partial<ClientFields>): Promise<ClientWithSecret> {
    const type = fields.type ?? 'confidential';
    const redirectUris = fields.redirectUris ?? [];
    const complete: ClientFields = {
      name: fields.name ?? clientId,
      type,
      redirectUris,
      postLogoutRedirectUris: fields.postLogoutRedirectUris ?? [],
      grantTypes:
        fields.grantTypes ??
        (redirectUris.length > 0 || type === 'public' ? undefined : ['client_credentials', 'refresh_token']),
      firstParty: fields.firstParty ?? false,
      backchannelLogoutUri: fields.backchannelLogoutUri ?? null,
    };
    const idProblem = CLIENT_ID.test(clientId) ? null : clientIdProblem(clientId);
    const { problems, grantTypes } = checkClientFields(complete);
    if (idProblem) problems.unshift({ field: 'client_id', message: idProblem });
    if (problems.length > 0) throw new ClientFieldsError(problems);
    const secret = type === 'confidential' ? newSecret() : null;
    const row = await this.clients.insert({
      clientId,
      secretHash: secret === null ? null : sha256Hex(secret),
      name: complete.name.trim(),
      type,
      redirectUris: complete.redirectUris,
      postLogoutRedirectUris: complete.postLogoutRedirectUris,
      grantTypes,
      firstParty: complete.firstParty,
      backchannelLogoutUri: complete.backchannelLogoutUri,
      dynamicallyRegistered: false,
    });
    if (!row) {
      throw new Error(
        `Client ${clientId} already exists; its secret is unchanged. To replace it on purpose: ` +
          `npm run cli -- create-client ${clientId} --rotate-secret`,
      );
    }
    return { client: clientOf(row), secret };
  }

  /**
   * Changes what an edit may change (name, URIs, grant types, first party, back-channel URI): the
   * fields given replace the client's, the others stay, and so do the id and the type. `check`
   * runs on the locked row first (the privilege policy). `before` is the record as it was.
   */
  async update(
    clientId: string,
    changes: Partial<Omit<ClientFields, 'type'>>,
    check?: ClientCheck,
  ): Promise<{ before: Client; after: Client }> {
    return this.transactions.run(async (manager) => {
      const row = await this.clients.findByClientIdForUpdate(manager, clientId);
      if (!row) throw clientNotFound();
      await check?.(manager, clientOf(row));
      const fields: ClientFields = {
        name: changes.name ?? row.name,
        type: row.type,
        redirectUris: changes.redirectUris ?? row.redirectUris,
        postLogoutRedirectUris: changes.postLogoutRedirectUris ?? row.postLogoutRedirectUris,
        grantTypes: changes.grantTypes ?? row.grantTypes,
        firstParty: changes.firstParty ?? row.firstParty,
        backchannelLogoutUri:
          changes.backchannelLogoutUri !== undefined ? changes.backchannelLogoutUri : row.backchannelLogoutUri,
      };
      const { problems, grantTypes } = checkClientFields(fields);
      if (row.dynamicallyRegistered && grantTypes.includes('client_credentials')) {
        problems.push({
          field: 'grant_types',
          message: 'client_credentials is not for a dynamically registered client',
        });
      }
      if (problems.length > 0) throw new AppException('VALIDATION_FAILED', 'The request is invalid.', problems);
      const updated = await this.clients.update(manager, clientId, {
        name: fields.name.trim(),
        redirectUris: fields.redirectUris,
        postLogoutRedirectUris: fields.postLogoutRedirectUris,
        grantTypes,
        firstParty: row.dynamicallyRegistered ? false : fields.firstParty,
        backchannelLogoutUri: fields.backchannelLogoutUri,
      });
      return { before: clientOf(row), after: clientOf(updated) };
    });
  }

  /** A new secret for a confidential client; the old one is refused from the commit on. */
  async rotateSecret(clientId: string, check?: ClientCheck): Promise<ClientWithSecret> {
    return this.transactions.run(async (manager) => {
      const row = await this.clients.findByClientIdForUpdate(manager, clientId);
      if (!row) throw clientNotFound();
      await check?.(manager, clientOf(row));
      if (row.type !== 'confidential') {
        throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
          { field: 'client_id', message: 'A public client has no secret.' },
        ]);
      }
      const secret = newSecret();
      await this.clients.updateSecretHash(manager, clientId, sha256Hex(secret));
      return { client: clientOf(row), secret };
    });
  }

  /** Deletes a stored client, and with it (listeners, same transaction) what hangs on its id. */
  async delete(clientId: string, check?: ClientCheck): Promise<Client> {
    return this.transactions.run(async (manager) => {
      const row = await this.clients.findByClientIdForUpdate(manager, clientId);
      if (!row) throw clientNotFound();
      await check?.(manager, clientOf(row));
      await this.clients.delete(manager, clientId);
      for (const listener of this.deletedListeners) await listener(manager, clientId);
      return clientOf(row);
    });
  }

  /** Registers work to run in the transaction that deletes a client (its roles, its tokens). */
  whenDeleted(listener: ClientDeletedListener): void {
    this.deletedListeners.push(listener);
  }
}

/** The CLI's refusal of a client's fields: the problems, to print one per line. */
export class ClientFieldsError extends Error {
  constructor(readonly problems: { field: string; message: string }[]) {
    super(problems.map((problem) => problem.message).join('\n'));
  }
}

function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

function clientNotFound(): AppException {
  return new AppException('NOT_FOUND', 'Client not found.');
}

function clientIdTaken(): AppException {
  return new AppException('CONFLICT', 'A client with this client_id already exists.', [
    { field: 'client_id', message: 'client_id is taken' },
  ]);
}

function clientOf(row: ClientRow): Client {
  return {
    clientId: row.clientId,
    name: row.name,
    type: row.type,
    redirectUris: row.redirectUris,
    postLogoutRedirectUris: row.postLogoutRedirectUris,
    grantTypes: row.grantTypes as GrantType[],
    firstParty: row.firstParty,
    backchannelLogoutUri: row.backchannelLogoutUri,
    dynamicallyRegistered: row.dynamicallyRegistered,
    source: 'registry',
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function environmentClient(clientId: string): Client {
  return {
    clientId,
    name: clientId,
    type: 'confidential',
    redirectUris: [],
    postLogoutRedirectUris: [],
    grantTypes: ['client_credentials', 'refresh_token'],
    firstParty: false,
    backchannelLogoutUri: null,
    dynamicallyRegistered: false,
    source: 'environment',
    createdAt: null,
    updatedAt: null,
  };
}

/** Compared against when the client is unknown or public, so that path takes as long as a wrong secret. */
const UNKNOWN_CLIENT_HASH = sha256Hex(randomBytes(32).toString('hex'));
