import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import { UuidParam } from '../common/uuid-param.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { CreateContentDto, ListContentsQuery, UpdateContentDto } from './contents.dto.js';
import { ContentsService } from './contents.service.js';

@Controller('contents')
export class ContentsController {
  constructor(private readonly contents: ContentsService) {}

  @Get()
  @RequirePermissions(Permissions.ContentsView)
  list(@Query() query: ListContentsQuery) {
    return this.contents.list(query);
  }

  @Post()
  @RequirePermissions(Permissions.ContentsCreate)
  create(@Body() dto: CreateContentDto, @CurrentUser() user: AuthUser) {
    return this.contents.create(dto, user);
  }

  @Get(':id')
  @RequirePermissions(Permissions.ContentsView)
  get(@UuidParam() id: string) {
    return this.contents.get(id);
  }

  @Put(':id')
  @RequirePermissions(Permissions.ContentsEdit)
  update(@UuidParam() id: string, @Body() dto: UpdateContentDto) {
    return this.contents.update(id, dto);
  }

  @Delete(':id')
  @RequirePermissions(Permissions.ContentsDelete)
  delete(@UuidParam() id: string) {
    return this.contents.delete(id);
  }
}
