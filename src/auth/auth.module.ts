import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module.js';
import { MailModule } from '../mail/mail.module.js';
import { OtpCoreModule } from '../otp/otp-core.module.js';
import { TwoFactorService } from '../otp/two-factor.service.js';
import { RbacCoreModule } from '../rbac/rbac-core.module.js';
import { SettingsModule } from '../settings/settings.module.js';
import { IdentityChangeModule } from '../users/identity-change.module.js';
import { UsersModule } from '../users/users.module.js';
import { AuthController } from './auth.controller.js';
import { AuthRepositoriesModule } from './auth-repositories.module.js';
import { AuthService } from './auth.service.js';
import { JwksController } from './jwks.controller.js';
import { PasswordResetService } from './password-reset.service.js';
import { PasswordModule } from './password.module.js';
import { SessionService } from './session.service.js';
import { SigningKeys } from './signing-keys.js';
import { TokenService } from './token.service.js';

@Module({
  imports: [
    PasswordModule,
    UsersModule,
    AuthRepositoriesModule,
    IdentityChangeModule,
    MailModule,
    RbacCoreModule,
    SettingsModule,
    OtpCoreModule,
    LimitsModule,
  ],
  controllers: [AuthController, JwksController],
  providers: [
    SigningKeys,
    TokenService,
    SessionService,
    AuthService,
    PasswordResetService,
    // Lives with the password login, which challenges administrators through it.
    TwoFactorService,
  ],
  exports: [SigningKeys, TokenService, SessionService, AuthService, TwoFactorService, UsersModule],
})
export class AuthModule {}
