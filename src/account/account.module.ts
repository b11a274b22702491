import { Module } from '@nestjs/common';
import { AuthRepositoriesModule } from '../core/sessions/auth-repositories.module.js';
import { SessionsModule } from '../core/sessions/sessions.module.js';
import { TwoFactorModule } from '../core/second-factor/two-factor.module.js';
import { PasswordModule } from '../core/passwords/password.module.js';
import { LockoutModule } from '../core/lockout/lockout.module.js';
import { MailModule } from '../outbox/mail.module.js';
import { OtpCoreModule } from '../core/otp/otp-core.module.js';
import { RbacCoreModule } from '../core/principal/rbac-core.module.js';
import { IdentityChangeModule } from '../core/identity/identity-change.module.js';
import { UsersModule } from '../core/users/users.module.js';
import { AccountChangesRepository } from '../core/users/account-changes.repository.js';
import { AccountSessionsService } from './account-sessions.service.js';
import { EmailChangeService } from './email-change.service.js';
import { MobileChangeService } from './mobile-change.service.js';
import { AccountController } from './account.controller.js';
import { AdminSessionsController } from './admin-sessions.controller.js';
import { AdminSessionsService } from './admin-sessions.service.js';
import { PasswordChangeService } from './password-change.service.js';
import { ProfileService } from './profile.service.js';
import { ReauthenticationService } from './reauthentication.service.js';
import { SecondFactorModule } from '../core/second-factor/second-factor.module.js';
import { TotpEnrolmentService } from './totp-enrolment.service.js';
import { AccountDeletionService } from './account-deletion.service.js';
import { RolesModule } from '../core/roles/roles.module.js';
import { PasskeyEnrolmentService } from './passkey-enrolment.service.js';
import { PasskeysController } from './passkeys.controller.js';

/** The signed-in person's own account: profile, password, contact details, sessions, second factors. */
@Module({
  imports: [
    SessionsModule,
    TwoFactorModule,
    UsersModule,
    PasswordModule,
    AuthRepositoriesModule,
    IdentityChangeModule,
    RbacCoreModule,
    LockoutModule,
    SecondFactorModule,
    MailModule,
    OtpCoreModule,
    RolesModule,
  ],
  controllers: [AccountController, PasskeysController, AdminSessionsController],
  providers: [
    ProfileService,
    PasswordChangeService,
    ReauthenticationService,
    AccountSessionsService,
    AdminSessionsService,
    TotpEnrolmentService,
    PasskeyEnrolmentService,
    AccountChangesRepository,
    EmailChangeService,
    MobileChangeService,
    AccountDeletionService,
  ],
  // The enrolment guard is registered globally by AppModule and needs the sign-in's second-factor rules.
  exports: [AccountSessionsService, UsersModule, TwoFactorModule],
})
export class AccountModule {}
