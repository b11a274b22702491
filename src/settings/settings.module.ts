import { Module } from '@nestjs/common';
import { SettingsCoreModule } from '../core/settings/settings-core.module.js';
import { SettingsController } from './settings.controller.js';

/** `/api/admin/settings`: reading and changing the login-method flags. */
@Module({
  imports: [SettingsCoreModule],
  controllers: [SettingsController],
})
export class SettingsModule {}
