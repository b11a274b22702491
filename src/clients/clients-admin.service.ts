import type { AuthUser } from '@auth-rbac/nest-guard';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditLog, type AuditTarget } from '../audit/index.js';
import { pageOf, pageOffset, type Page, type PageQuery } from '../common/pagination.dto.js';
import { assertMayActOn } from '../rbac/index.js';
import { ClientRolesRepository } from './client-roles.repository.js';
import type { CreateClientDto, UpdateClientDto } from './clients.dto.js';
import { toClientResponse, type ClientResponse } from './clients.responses.js';
import { ClientsService, type Client, type ClientCheck } from './clients.service.js';

/** A new client as POST answers it: the record, and a confidential client's secret, shown once. */
export type CreatedClientResponse = ClientResponse & { client_secret?: string };

/**
 * The administration of the client registry (`/api/admin/clients`). The privilege policy holds
 * as for users: a client whose roles hold a permission the actor lacks is out of the actor's
 * reach (an edit, a deletion, and above all a new secret, which would let the actor act as the
 * client). Every change is audited; no secret is ever written to the trail.
 */
@Injectable()
export class ClientsAdminService {
  constructor(
    private readonly clients: ClientsService,
    private readonly clientRoles: ClientRolesRepository,
    private readonly audit: AuditLog,
  ) {}

  async list(query: PageQuery): Promise<Page<ClientResponse>> {
    const { items, total } = await this.clients.list(query.limit, pageOffset(query));
    return pageOf(query, items.map(toClientResponse), total);
  }

  async get(clientId: string): Promise<ClientResponse> {
    return toClientResponse(await this.clients.getStored(clientId));
  }

  async create(actor: AuthUser, dto: CreateClientDto): Promise<CreatedClientResponse> {
    const { client, secret } = await this.clients.register(
      dto.client_id,
      {
        name: dto.name,
        type: dto.type,
        redirectUris: dto.redirect_uris,
        postLogoutRedirectUris: dto.post_logout_redirect_uris ?? [],
        grantTypes: dto.grant_types,
        firstParty: dto.first_party ?? false,
        backchannelLogoutUri: dto.backchannel_logout_uri ?? null,
      },
      'admin',
    );
    await this.audit.recordChange('client.create', actor, auditTarget(client), {
      type: client.type,
      grant_types: [...client.grantTypes],
    });
    const response: CreatedClientResponse = toClientResponse(client);
    if (secret !== null) response.client_secret = secret;
    return response;
  }

  async update(actor: AuthUser, clientId: string, dto: UpdateClientDto): Promise<ClientResponse> {
    const { after } = await this.clients.update(
      clientId,
      {
        name: dto.name,
        redirectUris: dto.redirect_uris,
        postLogoutRedirectUris: dto.post_logout_redirect_uris,
        grantTypes: dto.grant_types,
        firstParty: dto.first_party,
        backchannelLogoutUri: dto.backchannel_logout_uri,
      },
      this.mayActOn(actor, 'client.update'),
    );
    await this.audit.recordChange('client.update', actor, auditTarget(after), { fields: Object.keys(dto).sort() });
    return toClientResponse(after);
  }

  async rotateSecret(actor: AuthUser, clientId: string): Promise<{ client_id: string; client_secret: string }> {
    const { client, secret } = await this.clients.rotateSecret(clientId, this.mayActOn(actor, 'client.secret'));
    await this.audit.recordChange('client.secret', actor, auditTarget(client));
    return { client_id: client.clientId, client_secret: secret! };
  }

  async delete(actor: AuthUser, clientId: string): Promise<Record<string, never>> {
    const client = await this.clients.delete(clientId, this.mayActOn(actor, 'client.delete'));
    await this.audit.recordChange('client.delete', actor, auditTarget(client));
    return {};
  }

  /** "target ⊆ own": the actor holds every permission of the client's roles (read under the client's roles lock). */
  private mayActOn(actor: AuthUser, action: string): ClientCheck {
    return async (manager: EntityManager, client: Client) => {
      await this.clientRoles.lockClient(manager, client.clientId);
      const permissions = await this.clientRoles.permissionsOf(client.clientId, manager);
      assertMayActOn(actor, { type: 'client', id: client.clientId }, permissions, action);
    };
  }
}

/** The trail names a client by its `client_id`: cut to the column's 64 characters as the target, whole in the details. */
function auditTarget(client: Client): AuditTarget {
  return { type: 'client', id: client.clientId.slice(0, 64), facts: { client_id: client.clientId } };
}
