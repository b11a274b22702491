import { Controller, Delete, Get, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { clientOf } from '../core/sessions/client-info.js';
import { CurrentUser } from '@auth-rbac/nest-guard';
import { UuidParam } from '../common/uuid-param.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { Permissions } from '@auth-rbac/nest-guard';
import { RequirePermissions } from '@auth-rbac/nest-guard';
import { AdminSessionsService } from './admin-sessions.service.js';

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
  revokeAll(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Req() request: FastifyRequest) {
    return this.sessions.revokeAll(actor, id, clientOf(request));
  }

  @Delete(':session_id')
  revokeOne(
    @CurrentUser() actor: AuthUser,
    @UuidParam() id: string,
    @UuidParam('session_id') sessionId: string,
    @Req() request: FastifyRequest,
  ) {
    return this.sessions.revokeOne(actor, id, sessionId, clientOf(request));
  }
}
