import { Module } from '@nestjs/common';
import { EventsModule } from '../events/index.js';
import { IdentityModule } from '../identity/index.js';
import { AccessRepository } from './access.repository.js';
import { AuthzVersions } from './authz-versions.js';
import { DefinitionWrites } from './definition-writes.js';
import { PermissionsController } from './permissions.controller.js';
import { PermissionsService } from './permissions.service.js';
import { PrincipalService } from './principal.service.js';
import { RolesController } from './roles.controller.js';
import { RolesRepository } from './roles.repository.js';
import { RolesService } from './roles.service.js';
import { SeedService } from './seeds/seed.service.js';
import { UserRolesRepository } from './user-roles.repository.js';
import { NewAccounts } from './new-accounts.js';

/** Roles, permissions, what an account may do (the principal), the privilege policy, and the seeds. */
@Module({
  imports: [IdentityModule, EventsModule],
  controllers: [RolesController, PermissionsController],
  providers: [
    RolesRepository,
    AccessRepository,
    AuthzVersions,
    PrincipalService,
    RolesService,
    PermissionsService,
    DefinitionWrites,
    SeedService,
    UserRolesRepository,
    NewAccounts,
  ],
  exports: [
    RolesRepository,
    UserRolesRepository,
    NewAccounts,
    AccessRepository,
    AuthzVersions,
    PrincipalService,
    SeedService,
  ],
})
export class RbacModule {}
