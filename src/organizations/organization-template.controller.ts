import { Body, Controller, Delete, Get, Post, Put } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions, type AuthUser } from '@auth-rbac/nest-guard';
import { DocumentRoute, empty, list, ref } from '../common/route-doc.js';
import { UuidParam } from '../common/uuid-param.js';
import { CreatePermissionDto, CreateRoleDto, UpdatePermissionDto, UpdateRoleDto } from '../rbac/index.js';
import { OrganizationTemplateService } from './organization-template.service.js';

const NO_ROLE = 'NOT_FOUND: no such organization role.';
const NO_PERMISSION = 'NOT_FOUND: no such organization permission.';

/** The template of organization roles and permissions every organization shares (instance `roles.*`). */
@Controller('admin')
export class OrganizationTemplateController {
  constructor(private readonly template: OrganizationTemplateService) {}

  @Get('organization-roles')
  @RequirePermissions(Permissions.RolesView)
  @DocumentRoute({ summary: 'The organization roles', data: list(ref('Role')) })
  listRoles() {
    return this.template.listRoles();
  }

  @Get('organization-roles/:id')
  @RequirePermissions(Permissions.RolesView)
  @DocumentRoute({ summary: 'One organization role', data: ref('Role'), statuses: { 404: NO_ROLE } })
  getRole(@UuidParam() id: string) {
    return this.template.getRole(id);
  }

  @Post('organization-roles')
  @RequirePermissions(Permissions.RolesCreate)
  @DocumentRoute({
    summary: 'Create an organization role',
    data: ref('Role'),
    statuses: { 409: 'CONFLICT: the name is taken.' },
  })
  createRole(@CurrentUser() user: AuthUser, @Body() dto: CreateRoleDto) {
    return this.template.createRole(user, dto);
  }

  @Put('organization-roles/:id')
  @RequirePermissions(Permissions.RolesEdit)
  @DocumentRoute({
    summary: 'Change an organization role (permission_ids replaces its set)',
    data: ref('Role'),
    statuses: {
      403: 'SYSTEM_PROTECTED: a system role renamed, or owner losing a permission.',
      404: NO_ROLE,
      409: 'CONFLICT: the name is taken.',
    },
  })
  updateRole(@CurrentUser() user: AuthUser, @UuidParam() id: string, @Body() dto: UpdateRoleDto) {
    return this.template.updateRole(user, id, dto);
  }

  @Delete('organization-roles/:id')
  @RequirePermissions(Permissions.RolesDelete)
  @DocumentRoute({
    summary: 'Delete an organization role',
    data: empty,
    statuses: { 403: 'SYSTEM_PROTECTED: a system role.', 404: NO_ROLE },
  })
  deleteRole(@CurrentUser() user: AuthUser, @UuidParam() id: string) {
    return this.template.deleteRole(user, id);
  }

  @Get('organization-permissions')
  @RequirePermissions(Permissions.RolesView)
  @DocumentRoute({ summary: 'The organization permissions', data: list(ref('Permission')) })
  listPermissions() {
    return this.template.listPermissions();
  }

  @Get('organization-permissions/:id')
  @RequirePermissions(Permissions.RolesView)
  @DocumentRoute({ summary: 'One organization permission', data: ref('Permission'), statuses: { 404: NO_PERMISSION } })
  getPermission(@UuidParam() id: string) {
    return this.template.getPermission(id);
  }

  @Post('organization-permissions')
  @RequirePermissions(Permissions.RolesCreate)
  @DocumentRoute({
    summary: 'Create an organization permission (owner receives it at once)',
    data: ref('Permission'),
    statuses: { 409: 'CONFLICT: the name is taken.' },
  })
  createPermission(@CurrentUser() user: AuthUser, @Body() dto: CreatePermissionDto) {
    return this.template.createPermission(user, dto);
  }

  @Put('organization-permissions/:id')
  @RequirePermissions(Permissions.RolesEdit)
  @DocumentRoute({
    summary: 'Change an organization permission',
    data: ref('Permission'),
    statuses: {
      403: 'SYSTEM_PROTECTED: a system permission renamed.',
      404: NO_PERMISSION,
      409: 'CONFLICT: the name is taken.',
    },
  })
  updatePermission(@CurrentUser() user: AuthUser, @UuidParam() id: string, @Body() dto: UpdatePermissionDto) {
    return this.template.updatePermission(user, id, dto);
  }

  @Delete('organization-permissions/:id')
  @RequirePermissions(Permissions.RolesDelete)
  @DocumentRoute({
    summary: 'Delete an organization permission',
    data: empty,
    statuses: { 403: 'SYSTEM_PROTECTED: a system permission.', 404: NO_PERMISSION },
  })
  deletePermission(@CurrentUser() user: AuthUser, @UuidParam() id: string) {
    return this.template.deletePermission(user, id);
  }
}
