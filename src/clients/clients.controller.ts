import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Query } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions, type AuthUser } from '@auth-rbac/nest-guard';
import { AdminList } from '../common/admin-list.decorator.js';
import { PageQuery } from '../common/pagination.dto.js';
import { DocumentRoute, empty, page, ref } from '../common/route-doc.js';
import { ClientsAdminService } from './clients-admin.service.js';
import { CreateClientDto, UpdateClientDto } from './clients.dto.js';

const NOT_FOUND = 'NOT_FOUND: no such client (clients of SERVICE_CLIENTS are not managed here).';

/**
 * The client registry (contract, "Clients: one registry"): the services of the token endpoint
 * and the applications that sign people in. `clients.*` permissions; the privilege policy keeps a
 * client whose roles hold more than the actor out of the actor's reach.
 */
@Controller('admin/clients')
export class ClientsController {
  constructor(private readonly clients: ClientsAdminService) {}

  @Get()
  @AdminList()
  @RequirePermissions(Permissions.ClientsView)
  @DocumentRoute({ summary: 'The registered clients, by client_id', data: page(ref('Client')) })
  list(@Query() query: PageQuery) {
    return this.clients.list(query);
  }

  @Post()
  @RequirePermissions(Permissions.ClientsCreate)
  @DocumentRoute({
    summary: 'Register a client (a confidential one gets its client_secret, shown once)',
    data: ref('NewClient'),
    statuses: {
      400: 'VALIDATION_FAILED: a field, or a URI the redirect-URI rules refuse.',
      409: 'CONFLICT: a client has this client_id.',
    },
  })
  create(@CurrentUser() actor: AuthUser, @Body() dto: CreateClientDto) {
    return this.clients.create(actor, dto);
  }

  @Get(':client_id')
  @RequirePermissions(Permissions.ClientsView)
  @DocumentRoute({ summary: 'One client', data: ref('Client'), statuses: { 404: NOT_FOUND } })
  get(@Param('client_id') clientId: string) {
    return this.clients.get(clientId);
  }

  @Put(':client_id')
  @RequirePermissions(Permissions.ClientsEdit)
  @DocumentRoute({
    summary: 'Change a client (the fields given replace its own; client_id and type stay)',
    data: ref('Client'),
    statuses: { 400: 'VALIDATION_FAILED: a field, or a URI the redirect-URI rules refuse.', 404: NOT_FOUND },
  })
  update(@CurrentUser() actor: AuthUser, @Param('client_id') clientId: string, @Body() dto: UpdateClientDto) {
    return this.clients.update(actor, clientId, dto);
  }

  @Delete(':client_id')
  @RequirePermissions(Permissions.ClientsDelete)
  @DocumentRoute({
    summary: 'Delete a client, its roles, and end its tokens',
    data: empty,
    statuses: { 404: NOT_FOUND },
  })
  delete(@CurrentUser() actor: AuthUser, @Param('client_id') clientId: string) {
    return this.clients.delete(actor, clientId);
  }

  @Post(':client_id/secret')
  @HttpCode(HttpStatus.OK)
  @RequirePermissions(Permissions.ClientsEdit)
  @DocumentRoute({
    summary: 'A new secret for a confidential client (shown once; the old one is refused at once)',
    data: ref('ClientSecret'),
    statuses: { 400: 'VALIDATION_FAILED: a public client has no secret.', 404: NOT_FOUND },
  })
  rotateSecret(@CurrentUser() actor: AuthUser, @Param('client_id') clientId: string) {
    return this.clients.rotateSecret(actor, clientId);
  }
}
