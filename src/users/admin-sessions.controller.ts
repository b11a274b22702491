import { Controller, Delete, Get } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import { UuidParam } from '../common/uuid-param.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { AdminSessionsService } from './admin-sessions.service.js';
import { Client, type ClientInfo } from '../common/client-info.js';

/** Administrators see and end another user's sessions, under users.edit and the privilege policy. */
@Controller('admin/users/:id/sessions')
@RequirePermissions(Permissions.UsersEdit)
export class AdminSessionsController {
  constructor(private readonly sessions: AdminSessionsService) {}

  @Get()
  list(@CurrentUser() actor: AuthUser, @UuidParam() id: string) {
    return this.sessions.list(actor, id);
  }

  @Delete()
  revokeAll(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Client() client: ClientInfo) {
    return this.sessions.revokeAll(actor, id, client);
  }

  @Delete(':session_id')
  revokeOne(
    @CurrentUser() actor: AuthUser,
    @UuidParam() id: string,
    @UuidParam('session_id') sessionId: string,
    @Client() client: ClientInfo,
  ) {
    return this.sessions.revokeOne(actor, { userId: id, sessionId }, client);
  }
}
