import { Module } from '@nestjs/common';
import { OtpCodes } from './otp-codes.js';
import { smsSenderProvider } from './sms/sms-sender.provider.js';

/** Making, hashing and delivering codes; used by mobile sign-in and by the admins' second factor. */
@Module({
  providers: [OtpCodes, smsSenderProvider],
  exports: [OtpCodes, smsSenderProvider],
})
export class OtpCoreModule {}
