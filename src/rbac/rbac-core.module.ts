import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module.js';
import { AuthzVersions } from './authz-versions.js';
import { PrincipalService } from './principal.service.js';

/** Loading the caller's roles and permissions, and publishing changes to them. */
@Module({
  imports: [UsersModule],
  providers: [AuthzVersions, PrincipalService],
  exports: [AuthzVersions, PrincipalService],
})
export class RbacCoreModule {}
