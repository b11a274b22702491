import { Module } from '@nestjs/common';
import { PasskeysRepository } from './passkeys.repository.js';
import { PasskeysService } from './passkeys.service.js';
import { RecoveryCodesService } from './recovery-codes.service.js';
import { SecondFactorsRepository } from './second-factors.repository.js';
import { SecretBox } from './secret-box.js';
import { TotpService } from './totp.service.js';

/**
 * The authenticator app, recovery codes and passkeys: enrolled from the account (account/), checked at
 * sign-in (TwoFactorModule) and reset from the command line.
 */
@Module({
  providers: [
    SecondFactorsRepository,
    SecretBox,
    TotpService,
    RecoveryCodesService,
    PasskeysRepository,
    PasskeysService,
  ],
  exports: [TotpService, RecoveryCodesService, SecondFactorsRepository, PasskeysRepository, PasskeysService],
})
export class SecondFactorModule {}
