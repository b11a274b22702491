import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/index.js';
import { MessagingModule } from '../infra/messaging/messaging.module.js';
import { LockoutModule } from '../lockout/index.js';
import { OidcModule } from '../oidc/index.js';
import { RbacModule } from '../rbac/index.js';
import { SettingsModule } from '../settings/index.js';
import { SessionsModule } from '../sessions/index.js';
import { OneTimeCodesModule } from '../one-time-codes/index.js';
import { PasskeysRepository } from './passkeys.repository.js';
import { PasskeysService } from './passkeys.service.js';
import { PrincipalRules } from './principal-rules.js';
import { RecoveryCodesService } from './recovery-codes.service.js';
import { SecondFactorsRepository } from './second-factors.repository.js';
import { SecretBox } from './secret-box.js';
import { TotpService } from './totp.service.js';
import { TwoFactorService } from './two-factor.service.js';

/** What the module makes and lends to its importers (the secret box stays inside). */
const EXPORTED = [
  SecondFactorsRepository,
  TotpService,
  RecoveryCodesService,
  PasskeysRepository,
  PasskeysService,
  TwoFactorService,
  PrincipalRules,
];

/** Challenges and their answers: app codes, recovery codes, SMS and email codes, passkeys. */
@Module({
  imports: [
    SessionsModule,
    OneTimeCodesModule,
    LockoutModule,
    SettingsModule,
    IdentityModule,
    RbacModule,
    OidcModule,
    MessagingModule,
  ],
  providers: [...EXPORTED, SecretBox],
  exports: EXPORTED,
})
export class SecondFactorModule {}
