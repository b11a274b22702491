import { UpstreamIdentitiesRepository } from './upstream-identities.repository.js';
import { Module } from '@nestjs/common';
import { AccountChangesRepository } from './account-changes.repository.js';
import { PasswordHasher } from './password-hasher.js';
import { UsersRepository } from './users.repository.js';

/** The account record: the users table, its pending changes, and how passwords are hashed. */
@Module({
  providers: [UsersRepository, AccountChangesRepository, PasswordHasher, UpstreamIdentitiesRepository],
  exports: [UsersRepository, AccountChangesRepository, PasswordHasher, UpstreamIdentitiesRepository],
})
export class IdentityModule {}
