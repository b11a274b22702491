import { Body, Controller, Delete, Get, Post, Put } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import { AdminList } from '../common/admin-list.decorator.js';
import { UuidParam } from '../common/uuid-param.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { PermissionsService } from './permissions.service.js';
import { CreatePermissionDto, UpdatePermissionDto } from './rbac.dto.js';

@Controller('admin/permissions')
export class PermissionsController {
  constructor(private readonly permissions: PermissionsService) {}

  @Get()
  @AdminList()
  @RequirePermissions(Permissions.RolesView)
  list() {
    return this.permissions.list();
  }

  @Get(':id')
  @RequirePermissions(Permissions.RolesView)
  get(@UuidParam() id: string) {
    return this.permissions.get(id);
  }

  @Post()
  @RequirePermissions(Permissions.RolesCreate)
  create(@CurrentUser() actor: AuthUser, @Body() dto: CreatePermissionDto) {
    return this.permissions.create(dto, actor);
  }

  @Put(':id')
  @RequirePermissions(Permissions.RolesEdit)
  update(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Body() dto: UpdatePermissionDto) {
    return this.permissions.update(id, dto, actor);
  }

  @Delete(':id')
  @RequirePermissions(Permissions.RolesDelete)
  delete(@CurrentUser() actor: AuthUser, @UuidParam() id: string) {
    return this.permissions.delete(id, actor);
  }
}
