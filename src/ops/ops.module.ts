import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { MessagingModule } from '../infra/messaging/messaging.module.js';
import { HealthController } from './health.controller.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';
import { ConsoleFiles } from './pages/console-files.js';
import { ConsolePageController } from './pages/console-page.controller.js';
import { CancelEmailChangePageController, ConfirmEmailPageController } from './pages/email-change-pages.controller.js';
import { PasskeyPageController } from './pages/passkey-page.controller.js';
import { ResetPageController } from './pages/reset-page.controller.js';
import { VerifyEmailPageController } from './pages/verify-email-page.controller.js';

/** What operators and browsers fetch: health, metrics, and the pages (console, reset, passkeys, email links). */
@Module({
  // One line (no colours, no line breaks) per failed check, like every other log line.
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json' }), MessagingModule],
  controllers: [
    HealthController,
    MetricsController,
    ResetPageController,
    ConfirmEmailPageController,
    CancelEmailChangePageController,
    VerifyEmailPageController,
    PasskeyPageController,
    ConsolePageController,
  ],
  providers: [MetricsService, ConsoleFiles],
})
export class OpsModule {}
