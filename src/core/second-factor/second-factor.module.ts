import { Module } from '@nestjs/common';
import { RecoveryCodesService } from './recovery-codes.service.js';
import { SecondFactorsRepository } from './second-factors.repository.js';
import { SecretBox } from './secret-box.js';
import { TotpService } from './totp.service.js';

/**
 * The authenticator app and recovery codes: enrolled from the account (account/), checked at
 * sign-in (TwoFactorModule) and reset from the command line.
 */
@Module({
  providers: [SecondFactorsRepository, SecretBox, TotpService, RecoveryCodesService],
  exports: [TotpService, RecoveryCodesService, SecondFactorsRepository],
})
export class SecondFactorModule {}
