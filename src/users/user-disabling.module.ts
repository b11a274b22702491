import { Module } from '@nestjs/common';
import { IdentityChangeModule } from '../core/identity/identity-change.module.js';
import { RolesModule } from '../core/roles/roles.module.js';
import { UsersModule } from '../core/users/users.module.js';
import { UserDisablingService } from './user-disabling.service.js';

/** Disabling accounts, for the administrators' API and the command line. */
@Module({
  imports: [UsersModule, RolesModule, IdentityChangeModule],
  providers: [UserDisablingService],
  exports: [UserDisablingService],
})
export class UserDisablingModule {}
