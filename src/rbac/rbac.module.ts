import { SecurityEventsModule } from '../core/events/security-events.module.js';
import { Module } from '@nestjs/common';
import { PermissionsController } from './permissions.controller.js';
import { PermissionsService } from './permissions.service.js';
import { RbacCoreModule } from '../core/principal/rbac-core.module.js';
import { RolesController } from './roles.controller.js';
import { RolesService } from './roles.service.js';
import { RolesModule } from '../core/roles/roles.module.js';

/** Administration of roles and permissions. */
@Module({
  imports: [SecurityEventsModule, RbacCoreModule, RolesModule],
  controllers: [RolesController, PermissionsController],
  providers: [RolesService, PermissionsService],
})
export class RbacModule {}
