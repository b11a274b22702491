import { Module } from '@nestjs/common';
import { settingsVersionProvider } from './settings-version.js';
import { SettingsRepository } from './settings.repository.js';
import { SettingsService } from './settings.service.js';

/** The login-method flags; the sign-in flows import it for SettingsService (read on every login). */
@Module({
  providers: [SettingsRepository, SettingsService, settingsVersionProvider],
  exports: [SettingsService],
})
export class SettingsCoreModule {}
