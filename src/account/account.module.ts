import { Module } from '@nestjs/common';
import { AuthRepositoriesModule } from '../auth/auth-repositories.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { PasswordModule } from '../auth/password.module.js';
import { LimitsModule } from '../limits/limits.module.js';
import { MailModule } from '../mail/mail.module.js';
import { OtpCoreModule } from '../otp/otp-core.module.js';
import { RbacCoreModule } from '../rbac/rbac-core.module.js';
import { IdentityChangeModule } from '../users/identity-change.module.js';
import { UsersModule } from '../users/users.module.js';
import { AccountChangesRepository } from './account-changes.repository.js';
import { AccountSessionsService } from './account-sessions.service.js';
import { EmailChangeService } from './email-change.service.js';
import { MobileChangeService } from './mobile-change.service.js';
import { AccountController } from './account.controller.js';
import { AdminSessionsController } from './admin-sessions.controller.js';
import { AdminSessionsService } from './admin-sessions.service.js';
import { PasswordChangeService } from './password-change.service.js';
import { ProfileService } from './profile.service.js';
import { ReauthenticationService } from './reauthentication.service.js';
import { SecondFactorModule } from './second-factor.module.js';
import { TotpEnrolmentService } from './totp-enrolment.service.js';

/** The signed-in person's own account: profile, password, contact details, sessions, second factors. */
@Module({
  imports: [
    AuthModule,
    UsersModule,
    PasswordModule,
    AuthRepositoriesModule,
    IdentityChangeModule,
    RbacCoreModule,
    LimitsModule,
    SecondFactorModule,
    MailModule,
    OtpCoreModule,
  ],
  controllers: [AccountController, AdminSessionsController],
  providers: [
    ProfileService,
    PasswordChangeService,
    ReauthenticationService,
    AccountSessionsService,
    AdminSessionsService,
    TotpEnrolmentService,
    AccountChangesRepository,
    EmailChangeService,
    MobileChangeService,
  ],
  // The enrolment guard is registered globally by AppModule and needs the sign-in's second-factor rules.
  exports: [AccountSessionsService, UsersModule, AuthModule],
})
export class AccountModule {}
