import { SecurityEventsModule } from '../core/events/security-events.module.js';
import { Module } from '@nestjs/common';
import { PermissionsController } from './permissions.controller.js';
import { PermissionsService } from './permissions.service.js';
import { RbacCoreModule } from '../core/principal/rbac-core.module.js';
import { RolesController } from './roles.controller.js';
import { RolesService } from './roles.service.js';
import { RolesModule } from '../core/roles/roles.module.js';
import { ClientsCoreModule } from '../core/clients/clients-core.module.js';
import { ClientRolesController } from './client-roles.controller.js';

/** Administration of roles and permissions, and of the roles of service clients. */
@Module({
  imports: [SecurityEventsModule, RbacCoreModule, RolesModule, ClientsCoreModule],
  controllers: [RolesController, PermissionsController, ClientRolesController],
  providers: [RolesService, PermissionsService],
})
export class RbacModule {}
