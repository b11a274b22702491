import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/index.js';
import { MessagingModule } from '../infra/messaging/messaging.module.js';
import { OneTimeCodesModule } from '../one-time-codes/index.js';
import { SecondFactorModule } from '../second-factor/index.js';
import { SettingsModule } from '../settings/index.js';
import { SessionsModule } from '../sessions/index.js';
import { MobileOtpService } from './mobile-otp.service.js';
import { OtpController } from './otp.controller.js';

/** Sign-in by a code sent to the account's mobile, and the second factor's verify step. */
@Module({
  imports: [SessionsModule, SecondFactorModule, OneTimeCodesModule, IdentityModule, SettingsModule, MessagingModule],
  controllers: [OtpController],
  providers: [MobileOtpService],
})
export class MobileOtpModule {}
