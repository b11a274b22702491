import { Controller, Delete } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import { UuidParam } from '../common/uuid-param.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { AdminSessionsService } from './admin-sessions.service.js';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute, empty } from '../common/route-doc.js';

/**
 * An administrator removes the authenticator app of a person locked out by a lost device, under
 * users.edit and the privilege policy (decision 054).
 */
@Controller('admin/users/:id/totp')
@RequirePermissions(Permissions.UsersEdit)
export class AdminSecondFactorController {
  constructor(private readonly users: AdminSessionsService) {}

  @Delete()
  @DocumentRoute({
    summary: "Remove a user's authenticator app and recovery codes; every session of the user ends",
    data: empty,
    statuses: { 404: 'NOT_FOUND: no such user, or the user has no authenticator app.' },
  })
  remove(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Client() client: ClientInfo) {
    return this.users.removeAuthenticatorApp(actor, id, client);
  }
}
