import { Module } from '@nestjs/common';
import { SettingsController } from './settings.controller.js';
import { settingsVersionProvider } from './settings-version.js';
import { SettingsRepository } from './settings.repository.js';
import { SettingsService } from './settings.service.js';

/** The settings an administrator changes at run time (GET/PATCH /api/settings), cached per version. */
@Module({
  controllers: [SettingsController],
  providers: [SettingsRepository, SettingsService, settingsVersionProvider],
  exports: [SettingsService],
})
export class SettingsModule {}
