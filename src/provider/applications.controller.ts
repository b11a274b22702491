import { CurrentUser, type AuthUser } from '@auth-rbac/nest-guard';
import { Controller, Delete, Get, HttpCode, HttpStatus, Param } from '@nestjs/common';
import { AppException } from '../common/app-exception.js';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute, empty, list, ref } from '../common/route-doc.js';
import { ApplicationsService } from './applications.service.js';

const CLIENT_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** The applications the signed-in person allowed to sign them in (OpenID provider consents). */
@Controller('account/applications')
export class ApplicationsController {
  constructor(private readonly applications: ApplicationsService) {}

  @Get()
  @DocumentRoute({ summary: 'The applications you allowed to sign you in', data: list(ref('Application')) })
  list(@CurrentUser() user: AuthUser) {
    return this.applications.list(user.id);
  }

  @Delete(':clientId')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: "Withdraw an application's access: its consent and every session issued to it end",
    data: empty,
    statuses: { 404: 'NOT_FOUND: you did not allow this application.' },
  })
  revoke(@CurrentUser() user: AuthUser, @Param('clientId') clientId: string, @Client() client: ClientInfo) {
    if (!CLIENT_ID.test(clientId)) {
      throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'client_id', message: 'client_id must be 1 to 100 letters, digits, dots, dashes or underscores' },
      ]);
    }
    return this.applications.revoke(user.id, clientId, client);
  }
}
