import { Body, Controller, Delete, Get, Post, Put } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import { AdminList } from '../common/admin-list.decorator.js';
import { UuidParam } from '../common/uuid-param.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { PermissionsService } from './permissions.service.js';
import { CreatePermissionDto, UpdatePermissionDto } from './rbac.dto.js';
import { DocumentRoute, ref, list, empty } from '../common/route-doc.js';

@Controller('admin/permissions')
export class PermissionsController {
  constructor(private readonly permissions: PermissionsService) {}

  @Get()
  @AdminList()
  @RequirePermissions(Permissions.RolesView)
  @DocumentRoute({ summary: 'Every permission', data: list(ref('Permission')) })
  list() {
    return this.permissions.list();
  }

  @Get(':id')
  @RequirePermissions(Permissions.RolesView)
  @DocumentRoute({
    summary: 'One permission',
    data: ref('Permission'),
    statuses: { 404: 'NOT_FOUND: no such permission.' },
  })
  get(@UuidParam() id: string) {
    return this.permissions.get(id);
  }

  @Post()
  @RequirePermissions(Permissions.RolesCreate)
  @DocumentRoute({
    summary: 'Create a permission (the admin role receives it)',
    data: ref('Permission'),
    statuses: { 409: 'CONFLICT: a permission has this name.' },
  })
  create(@CurrentUser() actor: AuthUser, @Body() dto: CreatePermissionDto) {
    return this.permissions.create(dto, actor);
  }

  @Put(':id')
  @RequirePermissions(Permissions.RolesEdit)
  @DocumentRoute({
    summary: 'Change a permission',
    data: ref('Permission'),
    statuses: { 404: 'NOT_FOUND: no such permission.', 409: 'CONFLICT: a permission has this name.' },
  })
  update(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Body() dto: UpdatePermissionDto) {
    return this.permissions.update(id, dto, actor);
  }

  @Delete(':id')
  @RequirePermissions(Permissions.RolesDelete)
  @DocumentRoute({ summary: 'Delete a permission', data: empty, statuses: { 404: 'NOT_FOUND: no such permission.' } })
  delete(@CurrentUser() actor: AuthUser, @UuidParam() id: string) {
    return this.permissions.delete(id, actor);
  }
}
