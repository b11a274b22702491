import { Module } from '@nestjs/common';
import { LockoutModule } from '../lockout/lockout.module.js';
import { OtpCoreModule } from '../otp/otp-core.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { SettingsCoreModule } from '../settings/settings-core.module.js';
import { UsersModule } from '../users/users.module.js';
import { SecondFactorModule } from './second-factor.module.js';
import { PrincipalRules } from './principal-rules.js';
import { TwoFactorService } from './two-factor.service.js';

/** The second-factor challenge of a password login, answered at verify-2fa (otp/) and judged for enrolment (account/). */
@Module({
  imports: [SessionsModule, LockoutModule, SettingsCoreModule, UsersModule, SecondFactorModule, OtpCoreModule],
  providers: [TwoFactorService, PrincipalRules],
  exports: [TwoFactorService, PrincipalRules],
})
export class TwoFactorModule {}
