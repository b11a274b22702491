import { Module } from '@nestjs/common';
import { CodeDigest } from './code-digest.js';
import { OneTimeCodesRepository } from './one-time-codes.repository.js';
import { OneTimeCodes } from './one-time-codes.service.js';
import { SendLimits } from './send-limits.js';

/** Every code a person types: one table, one keyed hash, one attempt rule, one send-limit rule. */
@Module({
  providers: [OneTimeCodesRepository, CodeDigest, OneTimeCodes, SendLimits],
  exports: [OneTimeCodes, SendLimits],
})
export class OneTimeCodesModule {}
