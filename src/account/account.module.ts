import { Module } from '@nestjs/common';
import { EventsModule } from '../events/index.js';
import { IdentityModule } from '../identity/index.js';
import { MessagingModule } from '../infra/messaging/messaging.module.js';
import { LockoutModule } from '../lockout/index.js';
import { RbacModule } from '../rbac/index.js';
import { OneTimeCodesModule } from '../one-time-codes/index.js';
import { SecondFactorModule } from '../second-factor/index.js';
import { SessionsModule } from '../sessions/index.js';
import { SignInMethodNotices } from './sign-in-method-notices.js';
import { AddressProofService } from './address-proof.service.js';
import { AccountDeletionService } from './account-deletion.service.js';
import { AccountRecoveryService } from './account-recovery.service.js';
import { AccountSessionsService } from './account-sessions.service.js';
import { AccountController } from './account.controller.js';
import { EmailChangeService } from './email-change.service.js';
import { EmailVerificationController } from './email-verification.controller.js';
import { EmailVerificationTokensRepository } from './email-verification-tokens.repository.js';
import { EmailVerificationService } from './email-verification.service.js';
import { IdentityChangeService } from './identity-change.service.js';
import { MobileChangeService } from './mobile-change.service.js';
import { PasskeyEnrolmentService } from './passkey-enrolment.service.js';
import { PasskeysController } from './passkeys.controller.js';
import { PasswordChangeService } from './password-change.service.js';
import { ProfileService } from './profile.service.js';
import { ReauthenticationService } from './reauthentication.service.js';
import { TotpEnrolmentService } from './totp-enrolment.service.js';

/** The account holder's own side: profile, credentials, factors, sessions, verification, deletion. */
@Module({
  imports: [
    SessionsModule,
    EventsModule,
    SecondFactorModule,
    OneTimeCodesModule,
    IdentityModule,
    RbacModule,
    LockoutModule,
    MessagingModule,
  ],
  controllers: [AccountController, PasskeysController, EmailVerificationController],
  providers: [
    ProfileService,
    PasswordChangeService,
    ReauthenticationService,
    AccountSessionsService,
    TotpEnrolmentService,
    PasskeyEnrolmentService,
    EmailChangeService,
    MobileChangeService,
    AccountDeletionService,
    AccountRecoveryService,
    IdentityChangeService,
    EmailVerificationService,
    EmailVerificationTokensRepository,
    AddressProofService,
    SignInMethodNotices,
  ],
  exports: [
    AccountDeletionService,
    AddressProofService,
    AccountSessionsService,
    IdentityChangeService,
    EmailVerificationService,
    AccountRecoveryService,
    SignInMethodNotices,
  ],
})
export class AccountModule {}
