import { Module } from '@nestjs/common';
import { PasswordResetTokensRepository } from './password-reset-tokens.repository.js';
import { SessionsRepository } from './sessions.repository.js';

/**
 * The session and reset-token tables, on their own so that the identity change (core/identity) and
 * the command line can end sessions and reset tokens without signing keys or tokens.
 */
@Module({
  providers: [SessionsRepository, PasswordResetTokensRepository],
  exports: [SessionsRepository, PasswordResetTokensRepository],
})
export class AuthRepositoriesModule {}
