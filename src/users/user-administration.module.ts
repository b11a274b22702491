import { SecurityEventsModule } from '../core/events/security-events.module.js';
import { RolesModule } from '../core/roles/roles.module.js';
import { Module } from '@nestjs/common';
import { PasswordModule } from '../core/passwords/password.module.js';
import { RbacCoreModule } from '../core/principal/rbac-core.module.js';
import { IdentityChangeModule } from '../core/identity/identity-change.module.js';
import { UserAdministrationService } from './user-administration.service.js';
import { UserRolesService } from './user-roles.service.js';
import { UsersController } from './users.controller.js';
import { UsersModule } from '../core/users/users.module.js';
import { UserDisablingModule } from './user-disabling.module.js';

/** `/api/admin/users`: users and their role assignments. */
@Module({
  imports: [
    SecurityEventsModule,
    UsersModule,
    PasswordModule,
    RbacCoreModule,
    IdentityChangeModule,
    RolesModule,
    UserDisablingModule,
  ],
  controllers: [UsersController],
  providers: [UserAdministrationService, UserRolesService],
})
export class UserAdministrationModule {}
