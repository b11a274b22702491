import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/index.js';
import { RbacModule } from '../rbac/index.js';
import { AnyAudienceVerifier } from './any-audience-verifier.js';
import { JwksController } from './jwks.controller.js';
import { PasswordResetTokensRepository } from './password-reset-tokens.repository.js';
import { SessionService } from './session.service.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionEndings } from './session-endings.js';
import { PublishedKeys } from './published-keys.js';
import { SigningKeys } from './signing-keys.js';
import { TokenService } from './token.service.js';

/** What the module makes and every importer may use: the same list. */
const SESSION_PARTS = [
  SigningKeys,
  PublishedKeys,
  TokenService,
  AnyAudienceVerifier,
  SessionService,
  SessionsRepository,
  SessionEndings,
  PasswordResetTokensRepository,
];

/** Keys, signed tokens, and the rows behind them: sessions (refresh tokens) and reset tokens. */
@Module({
  imports: [IdentityModule, RbacModule],
  controllers: [JwksController],
  providers: SESSION_PARTS,
  exports: SESSION_PARTS,
})
export class SessionsModule {}
