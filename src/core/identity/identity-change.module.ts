import { Module } from '@nestjs/common';
import { AuthRepositoriesModule } from '../sessions/auth-repositories.module.js';
import { MailModule } from '../../outbox/mail.module.js';
import { AuthzVersionsModule } from '../authz/authz-versions.module.js';
import { IdentityChangeService } from './identity-change.service.js';
import { AccountChangesRepository } from '../users/account-changes.repository.js';
import { UsersModule } from '../users/users.module.js';

/** Changes of an account's identity, shared by the administrators' API and the password reset. */
@Module({
  imports: [UsersModule, AuthRepositoriesModule, MailModule, AuthzVersionsModule],
  providers: [IdentityChangeService, AccountChangesRepository],
  exports: [IdentityChangeService],
})
export class IdentityChangeModule {}
