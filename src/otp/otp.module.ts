import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { SettingsModule } from '../settings/settings.module.js';
import { MobileOtpService } from './mobile-otp.service.js';
import { OtpCoreModule } from './otp-core.module.js';
import { OtpController } from './otp.controller.js';

/** `/api/auth/send-otp`, `/api/auth/verify-otp` and `/api/auth/otp/verify-2fa`. */
@Module({
  imports: [AuthModule, OtpCoreModule, SettingsModule],
  controllers: [OtpController],
  providers: [MobileOtpService],
})
export class OtpModule {}
