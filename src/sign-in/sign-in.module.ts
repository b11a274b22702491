import { Module } from '@nestjs/common';
import { AccountModule } from '../account/index.js';
import { IdentityModule } from '../identity/index.js';
import { LockoutModule } from '../lockout/index.js';
import { OrganizationsModule } from '../organizations/index.js';
import { RbacModule } from '../rbac/index.js';
import { SecondFactorModule } from '../second-factor/index.js';
import { SettingsModule } from '../settings/index.js';
import { SessionsModule } from '../sessions/index.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { PasskeySignInController } from './passkey-sign-in.controller.js';
import { PasskeySignInService } from './passkey-sign-in.service.js';

/** Registration, sign-in by password or passkey, refresh, logout and /auth/me. */
@Module({
  imports: [
    SessionsModule,
    SecondFactorModule,
    AccountModule,
    IdentityModule,
    RbacModule,
    SettingsModule,
    LockoutModule,
    OrganizationsModule,
  ],
  controllers: [AuthController, PasskeySignInController],
  providers: [AuthService, PasskeySignInService],
  exports: [AuthService],
})
export class SignInModule {}
