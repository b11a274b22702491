import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import { UuidParam } from '../common/uuid-param.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { CreateContentDto, ListContentsQuery, UpdateContentDto } from './contents.dto.js';
import { ContentsService } from './contents.service.js';
import { DocumentRoute, ref, page, empty } from '../common/route-doc.js';

@Controller('contents')
export class ContentsController {
  constructor(private readonly contents: ContentsService) {}

  @Get()
  @RequirePermissions(Permissions.ContentsView)
  @DocumentRoute({ summary: 'Contents, a page at a time', data: page(ref('Content')) })
  list(@Query() query: ListContentsQuery) {
    return this.contents.list(query);
  }

  @Post()
  @RequirePermissions(Permissions.ContentsCreate)
  @DocumentRoute({ summary: 'Create a content', data: ref('Content') })
  create(@Body() dto: CreateContentDto, @CurrentUser() user: AuthUser) {
    return this.contents.create(dto, user);
  }

  @Get(':id')
  @RequirePermissions(Permissions.ContentsView)
  @DocumentRoute({ summary: 'One content', data: ref('Content'), statuses: { 404: 'NOT_FOUND: no such content.' } })
  get(@UuidParam() id: string) {
    return this.contents.get(id);
  }

  @Put(':id')
  @RequirePermissions(Permissions.ContentsEdit)
  @DocumentRoute({
    summary: 'Change a content',
    data: ref('Content'),
    statuses: { 404: 'NOT_FOUND: no such content.' },
  })
  update(@UuidParam() id: string, @Body() dto: UpdateContentDto) {
    return this.contents.update(id, dto);
  }

  @Delete(':id')
  @RequirePermissions(Permissions.ContentsDelete)
  @DocumentRoute({ summary: 'Delete a content', data: empty, statuses: { 404: 'NOT_FOUND: no such content.' } })
  delete(@UuidParam() id: string) {
    return this.contents.delete(id);
  }
}
