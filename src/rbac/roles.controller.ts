import { Body, Controller, Delete, Get, Post, Put } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import { AdminList } from '../common/admin-list.decorator.js';
import { UuidParam } from '../common/uuid-param.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { CreateRoleDto, UpdateRoleDto } from './rbac.dto.js';
import { RolesService } from './roles.service.js';

@Controller('admin/roles')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get()
  @AdminList()
  @RequirePermissions(Permissions.RolesView)
  list() {
    return this.roles.list();
  }

  @Get(':id')
  @RequirePermissions(Permissions.RolesView)
  get(@UuidParam() id: string) {
    return this.roles.get(id);
  }

  @Post()
  @RequirePermissions(Permissions.RolesCreate)
  create(@CurrentUser() actor: AuthUser, @Body() dto: CreateRoleDto) {
    return this.roles.create(dto, actor);
  }

  @Put(':id')
  @RequirePermissions(Permissions.RolesEdit)
  update(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Body() dto: UpdateRoleDto) {
    return this.roles.update(id, dto, actor);
  }

  @Delete(':id')
  @RequirePermissions(Permissions.RolesDelete)
  delete(@CurrentUser() actor: AuthUser, @UuidParam() id: string) {
    return this.roles.delete(id, actor);
  }
}
