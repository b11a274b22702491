import { Module } from '@nestjs/common';
import { AuthzVersionsModule } from '../authz/authz-versions.module.js';
import { UsersModule } from '../users/users.module.js';
import { AuthRepositoriesModule } from './auth-repositories.module.js';
import { SessionService } from './session.service.js';
import { SigningKeys } from './signing-keys.js';
import { AnyAudienceVerifier } from './any-audience-verifier.js';
import { TokenService } from './token.service.js';

/** Signing keys, tokens and sessions: what every way of signing in (password, OTP, second factor) ends with. */
@Module({
  imports: [UsersModule, AuthRepositoriesModule, AuthzVersionsModule],
  providers: [SigningKeys, TokenService, SessionService, AnyAudienceVerifier],
  exports: [SigningKeys, TokenService, SessionService, AnyAudienceVerifier],
})
export class SessionsModule {}
