import { Module } from '@nestjs/common';
import { RecoveryCodesService } from './recovery-codes.service.js';
import { SecondFactorsRepository } from './second-factors.repository.js';
import { SecretBox } from './secret-box.js';
import { TotpService } from './totp.service.js';

/**
 * The authenticator app and recovery codes, on their own so that the sign-in (auth/, otp/) can
 * check them without depending on the account module, which itself depends on auth/.
 */
@Module({
  providers: [SecondFactorsRepository, SecretBox, TotpService, RecoveryCodesService],
  exports: [TotpService, RecoveryCodesService, SecondFactorsRepository],
})
export class SecondFactorModule {}
