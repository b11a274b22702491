import { Module } from '@nestjs/common';
import { RbacModule } from '../rbac/index.js';
import { ClientRolesController } from './client-roles.controller.js';
import { ClientRolesRepository } from './client-roles.repository.js';
import { ClientRolesService } from './client-roles.service.js';
import { ClientsAdminService } from './clients-admin.service.js';
import { ClientsController } from './clients.controller.js';
import { ClientsRepository } from './clients.repository.js';
import { ClientsService } from './clients.service.js';
import { BrowserOrigins } from './browser-origins.js';

/**
 * The one client registry (`service_clients`) and the roles given to clients (`client_roles`):
 * the services of the token endpoint and the applications that sign people in.
 */
@Module({
  imports: [RbacModule],
  controllers: [ClientsController, ClientRolesController],
  providers: [
    ClientsRepository,
    ClientsService,
    ClientsAdminService,
    ClientRolesRepository,
    ClientRolesService,
    BrowserOrigins,
  ],
  exports: [ClientsService, ClientRolesService, BrowserOrigins],
})
export class ClientsModule {}
