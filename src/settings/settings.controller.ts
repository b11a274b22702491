import { Body, Controller, Get, Put } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { UpdateSettingsDto } from './settings.dto.js';
import { SettingsService } from './settings.service.js';
import { DocumentRoute, ref } from '../common/route-doc.js';

@Controller('admin/settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get()
  @RequirePermissions(Permissions.SettingsView)
  @DocumentRoute({ summary: 'The login-method flags', data: ref('Settings') })
  view() {
    return this.settings.getSettings();
  }

  @Put()
  @RequirePermissions(Permissions.SettingsEdit)
  @DocumentRoute({ summary: 'Switch login methods on or off (every instance)', data: ref('Settings') })
  update(@Body() dto: UpdateSettingsDto, @CurrentUser() user: AuthUser) {
    return this.settings.updateSettings(dto, user);
  }
}
