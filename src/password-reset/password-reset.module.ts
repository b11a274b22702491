import { Module } from '@nestjs/common';
import { AccountModule } from '../account/index.js';
import { IdentityModule } from '../identity/index.js';
import { MessagingModule } from '../infra/messaging/messaging.module.js';
import { LockoutModule } from '../lockout/index.js';
import { SessionsModule } from '../sessions/index.js';
import { PasswordResetController } from './password-reset.controller.js';
import { PasswordResetService } from './password-reset.service.js';

/** Forgotten passwords: the mailed one-use link, and the new password it allows. */
@Module({
  imports: [AccountModule, SessionsModule, LockoutModule, IdentityModule, MessagingModule],
  controllers: [PasswordResetController],
  providers: [PasswordResetService],
})
export class PasswordResetModule {}
