import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module.js';
import { AuthzVersionsModule } from '../authz/authz-versions.module.js';
import { PrincipalService } from './principal.service.js';

/** Loading the caller's roles and permissions, and publishing changes to them. */
@Module({
  imports: [UsersModule, AuthzVersionsModule],
  providers: [PrincipalService],
  exports: [AuthzVersionsModule, PrincipalService],
})
export class RbacCoreModule {}
