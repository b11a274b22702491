import { Module } from '@nestjs/common';
import { AccountModule } from '../account/index.js';
import { IdentityModule } from '../identity/index.js';
import { MessagingModule } from '../infra/messaging/messaging.module.js';
import { RbacModule } from '../rbac/index.js';
import { OneTimeCodesModule } from '../one-time-codes/index.js';
import { SecondFactorModule } from '../second-factor/index.js';
import { SettingsModule } from '../settings/index.js';
import { SessionsModule } from '../sessions/index.js';
import { EmailCodeController } from './email-code.controller.js';
import { EmailCodeService } from './email-code.service.js';

/** Sign-in by a code sent to the account's email. */
@Module({
  imports: [
    AccountModule,
    SessionsModule,
    SecondFactorModule,
    OneTimeCodesModule,
    IdentityModule,
    RbacModule,
    SettingsModule,
    MessagingModule,
  ],
  controllers: [EmailCodeController],
  providers: [EmailCodeService],
})
export class EmailCodeModule {}
