import { Module } from '@nestjs/common';
import { SecondFactorModule } from '../core/second-factor/second-factor.module.js';
import { LockoutModule } from '../core/lockout/lockout.module.js';
import { MailModule } from '../outbox/mail.module.js';
import { OtpCoreModule } from '../core/otp/otp-core.module.js';
import { TwoFactorModule } from '../core/second-factor/two-factor.module.js';
import { RbacCoreModule } from '../core/principal/rbac-core.module.js';
import { SettingsCoreModule } from '../core/settings/settings-core.module.js';
import { IdentityChangeModule } from '../core/identity/identity-change.module.js';
import { UsersModule } from '../core/users/users.module.js';
import { AuthController } from './auth.controller.js';
import { AuthRepositoriesModule } from '../core/sessions/auth-repositories.module.js';
import { AuthService } from './auth.service.js';
import { JwksController } from './jwks.controller.js';
import { PasswordResetService } from './password-reset.service.js';
import { EmailVerificationService } from './email-verification.service.js';
import { EmailVerificationTokensRepository } from './email-verification-tokens.repository.js';
import { EmailCodeController } from './email-code.controller.js';
import { EmailCodeService } from './email-code.service.js';
import { EmailCodesRepository } from './email-codes.repository.js';
import { PasskeySignInController } from './passkey-sign-in.controller.js';
import { PasskeySignInService } from './passkey-sign-in.service.js';
import { PasswordModule } from '../core/passwords/password.module.js';
import { SessionsModule } from '../core/sessions/sessions.module.js';

@Module({
  imports: [
    PasswordModule,
    UsersModule,
    AuthRepositoriesModule,
    IdentityChangeModule,
    MailModule,
    RbacCoreModule,
    SettingsCoreModule,
    OtpCoreModule,
    LockoutModule,
    SecondFactorModule,
    SessionsModule,
    TwoFactorModule,
  ],
  controllers: [AuthController, PasskeySignInController, JwksController, EmailCodeController],
  providers: [
    AuthService,
    PasswordResetService,
    PasskeySignInService,
    EmailVerificationService,
    EmailVerificationTokensRepository,
    EmailCodeService,
    EmailCodesRepository,
  ],
})
export class AuthModule {}
