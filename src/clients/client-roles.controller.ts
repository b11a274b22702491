import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions, type AuthUser } from '@auth-rbac/nest-guard';
import { UuidParam } from '../common/uuid-param.js';
import { ClientRolesService } from './client-roles.service.js';
import { ClientRoleIdsDto } from '../rbac/index.js';
import { DocumentRoute, ref } from '../common/route-doc.js';

/**
 * The roles of service clients (whose client-credentials tokens carry their permissions). Giving
 * or taking one needs `roles.edit` and follows the privilege policy: nobody gives a client a
 * permission they lack, and the admin role needs `roles.edit` too. An unknown client is 404.
 */
@Controller('admin/clients')
export class ClientRolesController {
  constructor(private readonly clientRoles: ClientRolesService) {}

  @Get(':client_id/roles')
  @RequirePermissions(Permissions.RolesView)
  @DocumentRoute({
    summary: "A service client's roles",
    data: ref('ClientRoles'),
    statuses: { 404: 'NOT_FOUND: no such service client.' },
  })
  list(@Param('client_id') clientId: string) {
    return this.clientRoles.list(clientId);
  }

  @Post(':client_id/roles')
  @HttpCode(HttpStatus.OK)
  @RequirePermissions(Permissions.RolesEdit)
  @DocumentRoute({
    summary: 'Give a service client roles (idempotent)',
    data: ref('ClientRoles'),
    statuses: { 404: 'NOT_FOUND: no such service client.' },
  })
  add(@CurrentUser() actor: AuthUser, @Param('client_id') clientId: string, @Body() dto: ClientRoleIdsDto) {
    return this.clientRoles.add(actor, clientId, dto.role_ids);
  }

  @Delete(':client_id/roles/:role_id')
  @RequirePermissions(Permissions.RolesEdit)
  @DocumentRoute({
    summary: 'Take a role from a service client',
    data: ref('ClientRoles'),
    statuses: { 404: 'NOT_FOUND: no such service client or role.' },
  })
  remove(@CurrentUser() actor: AuthUser, @Param('client_id') clientId: string, @UuidParam('role_id') roleId: string) {
    return this.clientRoles.remove(actor, clientId, roleId);
  }
}
