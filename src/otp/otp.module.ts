import { Module } from '@nestjs/common';
import { SessionsModule } from '../core/sessions/sessions.module.js';
import { TwoFactorModule } from '../core/second-factor/two-factor.module.js';
import { SettingsCoreModule } from '../core/settings/settings-core.module.js';
import { UsersModule } from '../core/users/users.module.js';
import { MobileOtpService } from './mobile-otp.service.js';
import { OtpCoreModule } from '../core/otp/otp-core.module.js';
import { OtpController } from './otp.controller.js';

/** `/api/auth/send-otp`, `/api/auth/verify-otp` and `/api/auth/otp/verify-2fa`. */
@Module({
  imports: [SessionsModule, TwoFactorModule, UsersModule, OtpCoreModule, SettingsCoreModule],
  controllers: [OtpController],
  providers: [MobileOtpService],
})
export class OtpModule {}
