import type { AuthUser } from '@auth-rbac/nest-guard';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuditLog } from '../audit/index.js';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { Transactions } from '../infra/database/transactions.js';
import { resealEach, type ResealReport } from '../infra/keys/index.js';
import { ClientSecrets } from './client-secrets.js';
import type { IdentityProviderResponse } from './identity-provider-response.js';
import type { CreateIdentityProviderDto, UpdateIdentityProviderDto } from './identity-providers.dto.js';
import { isLoopbackHttp, UpstreamClient } from './upstream-client.js';
import {
  UpstreamProvidersRepository,
  type UpstreamProviderChanges,
  type UpstreamProviderRow,
} from './upstream-providers.repository.js';

const NOT_FOUND = () => new AppException('NOT_FOUND', 'Identity provider not found.');

/**
 * The administration of upstream identity providers (`/api/admin/identity-providers`): an
 * OpenID issuer's discovery is read before it is kept; the client secret is sealed under the data
 * key ring and never answered; every change is audited, never with a secret.
 */
@Injectable()
export class IdentityProvidersService {
  constructor(
    private readonly providers: UpstreamProvidersRepository,
    private readonly secrets: ClientSecrets,
    private readonly client: UpstreamClient,
    private readonly transactions: Transactions,
    private readonly audit: AuditLog,
    private readonly config: AppConfig,
  ) {}

  async list(): Promise<{ items: IdentityProviderResponse[]; total: number }> {
    const rows = await this.providers.list();
    return { items: rows.map((row) => this.toResponse(row)), total: rows.length };
  }

  async get(slug: string): Promise<IdentityProviderResponse> {
    const row = await this.providers.findBySlug(slug);
    if (!row) throw NOT_FOUND();
    return this.toResponse(row);
  }

  async create(actor: AuthUser, dto: CreateIdentityProviderDto): Promise<IdentityProviderResponse> {
    const issuer = await this.checkIssuer(dto.type, dto.issuer, dto.client_id);
    const id = randomUUID();
    const row = await this.transactions.run((manager) =>
      this.providers.insert(
        manager,
        id,
        {
          slug: dto.slug,
          name: dto.name,
          type: dto.type,
          issuer,
          clientId: dto.client_id,
          scopes: dto.scopes ?? [],
          trustEmail: dto.trust_email ?? false,
          allowSignUp: dto.allow_sign_up ?? true,
          enabled: dto.enabled ?? true,
        },
        this.secrets.seal(dto.client_secret, id),
      ),
    );
    if (!row) throw new AppException('CONFLICT', 'An identity provider has this slug.');
    await this.record('identity_provider.create', actor, row, { fields: Object.keys(dto).sort() });
    return this.toResponse(row);
  }

  async update(actor: AuthUser, slug: string, dto: UpdateIdentityProviderDto): Promise<IdentityProviderResponse> {
    const before = await this.providers.findBySlug(slug);
    if (!before) throw NOT_FOUND();
    const changes: UpstreamProviderChanges = {
      name: dto.name,
      clientId: dto.client_id,
      scopes: dto.scopes,
      trustEmail: dto.trust_email,
      allowSignUp: dto.allow_sign_up,
      enabled: dto.enabled,
    };
    if (dto.issuer !== undefined || dto.client_id !== undefined) {
      changes.issuer = await this.checkIssuer(
        before.type,
        dto.issuer ?? before.issuer ?? undefined,
        dto.client_id ?? before.clientId,
      );
    }
    const sealed = dto.client_secret === undefined ? undefined : this.secrets.seal(dto.client_secret, before.id);
    const after = await this.transactions.run(async (manager) => {
      // Under the row's lock: a link or sign-in that checks the provider waits for the change.
      if (!(await this.providers.lockById(manager, before.id))) return null;
      return this.providers.update(manager, before.id, changes, sealed);
    });
    if (!after) throw NOT_FOUND();
    await this.record('identity_provider.update', actor, after, { fields: Object.keys(dto).sort() });
    return this.toResponse(after);
  }

  async delete(actor: AuthUser, slug: string): Promise<Record<string, never>> {
    const row = await this.providers.findBySlug(slug);
    if (!row) throw NOT_FOUND();
    const deleted = await this.transactions.run(async (manager) => {
      if (!(await this.providers.lockById(manager, row.id))) return false;
      return this.providers.delete(manager, row.id);
    });
    if (!deleted) throw NOT_FOUND();
    await this.record('identity_provider.delete', actor, row, {});
    return {};
  }

  /** `rotate-data-key`: every client secret sealed under an older key of the ring is sealed under the first. */
  async resealSecrets(): Promise<ResealReport> {
    // A row changed meanwhile was sealed under the first key by an edit, or by another run.
    return resealEach(
      await this.providers.list(),
      (row) => this.secrets.openWith(row.clientSecretSealed, row.id),
      (row, opened) =>
        this.providers.replaceSealedSecret(row.id, row.clientSecretSealed, this.secrets.seal(opened.plaintext, row.id)),
    );
  }

  /** The callback URL of a provider: what the administrator registers at the upstream. */
  callbackUrl(slug: string): string {
    return `${this.config.http.issuer.replace(/\/$/, '')}/api/auth/authorize/upstream/${slug}/callback`;
  }

  /**
   * oidc: an issuer is required, `https` (or `http` on a loopback host), and its discovery must
   * answer. github: absent for github.com, or a GitHub Enterprise Server's base URL.
   */
  private async checkIssuer(
    type: 'oidc' | 'github',
    issuer: string | undefined,
    clientId: string,
  ): Promise<string | null> {
    const refuse = (message: string) =>
      new AppException('VALIDATION_FAILED', 'The request is invalid.', [{ field: 'issuer', message }]);
    if (issuer === undefined) {
      if (type === 'oidc') throw refuse('issuer is required for an oidc provider');
      return null;
    }
    let url: URL;
    try {
      url = new URL(issuer);
    } catch {
      throw refuse('issuer must be an https URL');
    }
    if (!(url.protocol === 'https:' || isLoopbackHttp(issuer)) || url.username || url.password || url.hash) {
      throw refuse('issuer must be an https URL (http only on a loopback host), without credentials or fragment');
    }
    if (type === 'oidc') {
      try {
        await this.client.discover(issuer, clientId);
      } catch {
        throw refuse("the issuer's discovery document could not be read");
      }
    }
    return issuer;
  }

  private toResponse(row: UpstreamProviderRow): IdentityProviderResponse {
    return {
      id: row.id,
      slug: row.slug,
      name: row.name,
      type: row.type,
      issuer: row.issuer,
      client_id: row.clientId,
      scopes: row.scopes,
      trust_email: row.trustEmail,
      allow_sign_up: row.allowSignUp,
      enabled: row.enabled,
      redirect_uri: this.callbackUrl(row.slug),
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    };
  }

  private record(
    type: 'identity_provider.create' | 'identity_provider.update' | 'identity_provider.delete',
    actor: AuthUser,
    row: UpstreamProviderRow,
    details: Record<string, unknown>,
  ): Promise<void> {
    return this.audit.record({
      type,
      actorId: actor.id,
      actorKind: actor.kind,
      targetType: 'identity_provider',
      targetId: row.slug,
      details: { slug: row.slug, type: row.type, ...details },
    });
  }
}
