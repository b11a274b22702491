import { Body, Controller, Delete, Get, Post, Put } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import { AdminList } from '../common/admin-list.decorator.js';
import { UuidParam } from '../common/uuid-param.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { CreateRoleDto, UpdateRoleDto } from './rbac.dto.js';
import { RolesService } from './roles.service.js';
import { DocumentRoute, ref, list, empty } from '../common/route-doc.js';

@Controller('admin/roles')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get()
  @AdminList()
  @RequirePermissions(Permissions.RolesView)
  @DocumentRoute({ summary: 'Every role, with its permissions', data: list(ref('Role')) })
  list() {
    return this.roles.list();
  }

  @Get(':id')
  @RequirePermissions(Permissions.RolesView)
  @DocumentRoute({ summary: 'One role', data: ref('Role'), statuses: { 404: 'NOT_FOUND: no such role.' } })
  get(@UuidParam() id: string) {
    return this.roles.get(id);
  }

  @Post()
  @RequirePermissions(Permissions.RolesCreate)
  @DocumentRoute({ summary: 'Create a role', data: ref('Role'), statuses: { 409: 'CONFLICT: a role has this name.' } })
  create(@CurrentUser() actor: AuthUser, @Body() dto: CreateRoleDto) {
    return this.roles.create(dto, actor);
  }

  @Put(':id')
  @RequirePermissions(Permissions.RolesEdit)
  @DocumentRoute({
    summary: 'Change a role (permission_ids replaces its set)',
    data: ref('Role'),
    statuses: { 404: 'NOT_FOUND: no such role.', 409: 'CONFLICT: a role has this name.' },
  })
  update(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Body() dto: UpdateRoleDto) {
    return this.roles.update(id, dto, actor);
  }

  @Delete(':id')
  @RequirePermissions(Permissions.RolesDelete)
  @DocumentRoute({ summary: 'Delete a role', data: empty, statuses: { 404: 'NOT_FOUND: no such role.' } })
  delete(@CurrentUser() actor: AuthUser, @UuidParam() id: string) {
    return this.roles.delete(id, actor);
  }
}
