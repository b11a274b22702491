import { Controller, Delete, Get } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import { UuidParam } from '../common/uuid-param.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { AdminSessionsService } from './admin-sessions.service.js';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute, ref, list, empty } from '../common/route-doc.js';

/** Administrators see and end another user's sessions, under users.edit and the privilege policy. */
@Controller('admin/users/:id/sessions')
@RequirePermissions(Permissions.UsersEdit)
export class AdminSessionsController {
  constructor(private readonly sessions: AdminSessionsService) {}

  @Get()
  @DocumentRoute({
    summary: "A user's sessions",
    data: list(ref('Session')),
    statuses: { 404: 'NOT_FOUND: no such user.' },
  })
  list(@CurrentUser() actor: AuthUser, @UuidParam() id: string) {
    return this.sessions.list(actor, id);
  }

  @Delete()
  @DocumentRoute({ summary: 'End every session of a user', data: empty, statuses: { 404: 'NOT_FOUND: no such user.' } })
  revokeAll(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Client() client: ClientInfo) {
    return this.sessions.revokeAll(actor, id, client);
  }

  @Delete(':session_id')
  @DocumentRoute({
    summary: 'End one session of a user',
    data: empty,
    statuses: { 404: 'NOT_FOUND: no such user or session.' },
  })
  revokeOne(
    @CurrentUser() actor: AuthUser,
    @UuidParam() id: string,
    @UuidParam('session_id') sessionId: string,
    @Client() client: ClientInfo,
  ) {
    return this.sessions.revokeOne(actor, { userId: id, sessionId }, client);
  }
}
