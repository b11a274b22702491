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
import { EmptyBodyPipe } from '../common/empty-body.pipe.js';
import { Client, type ClientInfo } from '../common/client-info.js';

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
  list(@Query() query: ListUsersQuery) {
    return this.users.list(query);
  }

  @Get(':id')
  @RequirePermissions(Permissions.UsersView)
  get(@UuidParam() id: string) {
    return this.users.get(id);
  }

  @Post()
  @RequirePermissions(Permissions.UsersCreate)
  create(@CurrentUser() actor: AuthUser, @Body() dto: CreateUserDto) {
    return this.users.create(dto, actor);
  }

  /** The specification's handler-level check, with its own message. */
  @Put(':id')
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
  delete(@CurrentUser() actor: AuthUser, @UuidParam() id: string) {
    return this.users.delete(id, actor);
  }

  @Post(':id/disable')
  @HttpCode(HttpStatus.OK)
  @RequirePermissions(Permissions.UsersEdit)
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
  enable(
    @CurrentUser() actor: AuthUser,
    @UuidParam() id: string,
    @Body(EmptyBodyPipe) _body: Record<string, never>,
    @Client() client: ClientInfo,
  ) {
    return this.disabling.enable(id, actor, client);
  }

  @Post(':id/roles')
  @HttpCode(HttpStatus.OK)
  addRoles(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Body() dto: RoleIdsDto) {
    assertMayEditUsers(actor);
    return this.userRoles.add(actor, id, dto.role_ids);
  }

  @Put(':id/roles')
  replaceRoles(@CurrentUser() actor: AuthUser, @UuidParam() id: string, @Body() dto: RoleIdsDto) {
    assertMayEditUsers(actor);
    return this.userRoles.replace(actor, id, dto.role_ids);
  }

  @Delete(':id/roles/:role_id')
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
