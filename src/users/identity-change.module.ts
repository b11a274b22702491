import { Module } from '@nestjs/common';
import { AuthRepositoriesModule } from '../auth/auth-repositories.module.js';
import { MailModule } from '../mail/mail.module.js';
import { RbacCoreModule } from '../rbac/rbac-core.module.js';
import { IdentityChangeService } from './identity-change.service.js';
import { AccountChangesRepository } from '../account/account-changes.repository.js';
import { UsersModule } from './users.module.js';

/** Changes of an account's identity, shared by the administrators' API and the password reset. */
@Module({
  imports: [UsersModule, AuthRepositoriesModule, MailModule, RbacCoreModule],
  providers: [IdentityChangeService, AccountChangesRepository],
  exports: [IdentityChangeService],
})
export class IdentityChangeModule {}
