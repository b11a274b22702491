import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Post, Put, Query } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import { AdminList } from '../common/admin-list.decorator.js';
import { AppException } from '../common/app-exception.js';
import { UuidParam } from '../common/uuid-param.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { UserAdministrationService } from './user-administration.service.js';
import { UserRolesService } from './user-roles.service.js';
import { CreateUserDto, DisableUserDto, ListUsersQuery, RoleIdsDto, UpdateUserDto } from './users.dto.js';
import { UserDisablingService } from './user-disabling.service.js';
import { TakesNoBody } from '../common/empty-body.pipe.js';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute, ref, page, empty } from '../common/route-doc.js';

@Controller('admin/users')
export class UsersController {
  constructor(
    private readonly users: UserAdministrationService,
    private readonly userRoles: UserRolesService,
    private readonly disabling: UserDisablingService,
  ) {}

  @Get()
  @AdminList()
  @RequirePermissions(Permissions.UsersView)
  @DocumentRoute({ summary: 'Users, a page at a time, optionally searched', data: page(ref('User')) })
  list(@Query() query: ListUsersQuery) {
    return this.users.list(query);
  }

  @Get(':id')
  @RequirePermissions(Permissions.UsersView)
  @DocumentRoute({ summary: 'One user with roles', data: ref('User'), statuses: { 404: 'NOT_FOUND: no such user.' } })
  get(@UuidParam() id: string) {
    return this.users.get(id);
  }

  @Post()
  @RequirePermissions(Permissions.UsersCreate)
  @DocumentRoute({ summary: 'Create a user', data: ref('User'), statuses: { 409: 'CONFLICT: email or mobile taken.' } })
  create(@CurrentUser() actor: AuthUser, @Body() dto: CreateUserDto) {
    return this.users.create(dto, actor);
  }

  /** The specification's handler-level check, with its own message. */
  @Put(':id')
  @DocumentRoute({
    summary: 'Change a user',
    data: ref('User'),
    statuses: { 404: 'NOT_FOUND: no such user.', 409: 'CONFLICT: email or mobile taken.' },
  })
  update(
    @CurrentUser() actor: AuthUser,
    @UuidParam() id: string,
    @Body() dto: UpdateUserDto,
    @Client() client: ClientInfo,
  ) {
    assertMayEditUsers(actor);
    return this.users.update(id, dto, actor, client);
  }

  @Delete(':id')
  @RequirePermissions(Permissions.UsersDelete)
  @DocumentRoute({
    summary: 'Delete a user',
    data: empty,
    statuses: { 404: 'NOT_FOUND: no such user.', 409: 'CONFLICT: the last administrator.' },
  })
  delete(@CurrentUser() actor: AuthUser, @UuidParam() id: string) {
    return this.users.delete(id, actor);
  }

  @Post(':id/disable')
  @HttpCode(HttpStatus.OK)
  @RequirePermissions(Permissions.UsersEdit)
  @DocumentRoute({
    summary: 'Disable a user: no sign-in, every session ends',
    data: ref('User'),
    statuses: { 404: 'NOT_FOUND: no such user.', 409: 'CONFLICT: the last enabled holder of the admin role.' },
  })
  disable(
    @CurrentUser() actor: AuthUser,
    @UuidParam() id: string,
    @Body() dto: DisableUserDto,
    @Client() client: ClientInfo,
  ) {
    const until = dto.until === undefined ? null : new Date(dto.until);
    return this.disabling.disable(id, { reason: dto.reason, until }, actor, client);
  }

  @Post(':id/enable')
  @HttpCode(HttpStatus.OK)
  @RequirePermissions(Permissions.UsersEdit)
  @TakesNoBody()
  @DocumentRoute({
    summary: 'Enable a disabled user again',
    data: ref('User'),
    statuses: { 404: 'NOT_FOUND: no such user.' },
  })
  enable(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Client() client: ClientInfo) {
    return this.disabling.enable(id, actor, client);
  }

  @Post(':id/roles')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Give a user roles (idempotent)',
    data: ref('UserRoles'),
    statuses: { 404: 'NOT_FOUND: no such user.' },
  })
  addRoles(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Body() dto: RoleIdsDto) {
    assertMayEditUsers(actor);
    return this.userRoles.add(actor, id, dto.role_ids);
  }

  @Put(':id/roles')
  @DocumentRoute({
    summary: "Replace a user's roles",
    data: ref('UserRoles'),
    statuses: { 404: 'NOT_FOUND: no such user.', 409: 'CONFLICT: the last administrator would lose the admin role.' },
  })
  replaceRoles(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Body() dto: RoleIdsDto) {
    assertMayEditUsers(actor);
    return this.userRoles.replace(actor, id, dto.role_ids);
  }

  @Delete(':id/roles/:role_id')
  @DocumentRoute({
    summary: 'Take a role from a user',
    data: ref('UserRoles'),
    statuses: {
      404: 'NOT_FOUND: no such user or role.',
      409: 'CONFLICT: the last administrator cannot lose the admin role.',
    },
  })
  removeRole(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @UuidParam('role_id') roleId: string) {
    assertMayEditUsers(actor);
    return this.userRoles.remove(actor, id, roleId);
  }
}

function assertMayEditUsers(actor: AuthUser): void {
  if (!actor.has(Permissions.UsersEdit)) {
    throw new AppException('FORBIDDEN', 'You have no permission to edit users.', [
      { permission: Permissions.UsersEdit },
    ]);
  }
}
