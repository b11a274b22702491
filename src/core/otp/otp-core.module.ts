import { Module } from '@nestjs/common';
import { OutboxModule } from '../../outbox/outbox.module.js';
import { OtpCodes } from './otp-codes.js';
import { SmsService } from '../../outbox/sms.service.js';

/** Making and hashing codes, and queuing SMS; used by mobile sign-in and by the second factor. */
@Module({
  imports: [OutboxModule],
  providers: [OtpCodes, SmsService],
  exports: [OtpCodes, SmsService],
})
export class OtpCoreModule {}
