import { Module } from '@nestjs/common';
import { SettingsController } from './settings.controller.js';
import { SettingsRepository } from './settings.repository.js';
import { SettingsService } from './settings.service.js';
import { settingsVersionProvider } from './settings-version.js';

/** The login-method flags; other modules import it for SettingsService (read on every login). */
@Module({
  controllers: [SettingsController],
  providers: [SettingsRepository, SettingsService, settingsVersionProvider],
  exports: [SettingsService],
})
export class SettingsModule {}
