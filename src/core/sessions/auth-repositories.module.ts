import { Module } from '@nestjs/common';
import { PasswordResetTokensRepository } from './password-reset-tokens.repository.js';
import { SessionsRepository } from './sessions.repository.js';

/**
 * The session and reset-token tables, on their own so that the identity change (users/) can end
 * sessions and reset tokens without depending on the whole authentication module.
 */
@Module({
  providers: [SessionsRepository, PasswordResetTokensRepository],
  exports: [SessionsRepository, PasswordResetTokensRepository],
})
export class AuthRepositoriesModule {}
