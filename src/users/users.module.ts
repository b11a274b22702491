import { Module } from '@nestjs/common';
import { AccountModule } from '../account/index.js';
import { EventsModule } from '../events/index.js';
import { IdentityModule } from '../identity/index.js';
import { RbacModule } from '../rbac/index.js';
import { SessionsModule } from '../sessions/index.js';
import { AdminUsersRepository } from './admin-users.repository.js';
import { AdminSecondFactorController } from './admin-second-factor.controller.js';
import { AdminSessionsController } from './admin-sessions.controller.js';
import { AdminSessionsService } from './admin-sessions.service.js';
import { UserAdministrationService } from './user-administration.service.js';
import { UserDisablingService } from './user-disabling.service.js';
import { UserRolesService } from './user-roles.service.js';
import { UsersController } from './users.controller.js';

/** Administration of users: accounts, their roles, their sessions, disabling. */
@Module({
  imports: [IdentityModule, RbacModule, SessionsModule, AccountModule, EventsModule],
  controllers: [UsersController, AdminSessionsController, AdminSecondFactorController],
  providers: [
    AdminUsersRepository,
    UserAdministrationService,
    UserRolesService,
    UserDisablingService,
    AdminSessionsService,
  ],
  exports: [UserDisablingService],
})
export class UsersModule {}
