import { Module } from '@nestjs/common';
import { LimitsModule } from '../../limits/limits.module.js';
import { AuditCoreModule } from '../audit/audit-core.module.js';
import { RolesModule } from '../roles/roles.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { ClientAuthentication } from './client-authentication.js';
import { ClientRolesRepository } from './client-roles.repository.js';
import { ClientRolesService } from './client-roles.service.js';
import { ClientTokensRepository } from './client-tokens.repository.js';
import { ClientTokensService } from './client-tokens.service.js';
import { ServiceClientsRepository } from './service-clients.repository.js';
import { ServiceClientsService } from './service-clients.service.js';

/** Service clients: who they are, how they authenticate, their roles and their access tokens. */
@Module({
  imports: [LimitsModule, SessionsModule, RolesModule, AuditCoreModule],
  providers: [
    ServiceClientsRepository,
    ServiceClientsService,
    ClientAuthentication,
    ClientRolesRepository,
    ClientRolesService,
    ClientTokensRepository,
    ClientTokensService,
  ],
  exports: [ServiceClientsService, ClientAuthentication, ClientRolesService, ClientTokensService],
})
export class ClientsCoreModule {}
