import { Controller, Get, Query } from '@nestjs/common';
import { AdminList } from '../common/admin-list.decorator.js';
import { DataSource } from 'typeorm';
import { Permissions } from '../rbac/permission-names.js';
import { RequirePermissions } from '../rbac/permissions.decorator.js';
import { AuditEvent } from './audit-event.entity.js';
import { ListAuditEventsQuery } from './audit.dto.js';

@Controller('admin/audit-events')
export class AuditController {
  constructor(private readonly dataSource: DataSource) {}

  /** Newest first; `user_id` matches the actor or the target. */
  @Get()
  @AdminList()
  @RequirePermissions(Permissions.AuditView)
  async list(@Query() query: ListAuditEventsQuery) {
    const builder = this.dataSource.getRepository(AuditEvent).createQueryBuilder('event');
    // Two parameters: one is compared with a uuid column, the other with a text one.
    if (query.user_id) {
      builder.andWhere('(event.actorId = :actor OR event.targetId = :target)', { actor: query.user_id, target: query.user_id });
    }
    if (query.type) builder.andWhere('event.type = :type', { type: query.type });
    const [events, total] = await builder
      .orderBy('event.createdAt', 'DESC')
      .addOrderBy('event.id', 'DESC')
      .skip((query.page - 1) * query.limit)
      .take(query.limit)
      .getManyAndCount();
    return {
      items: events.map((event) => ({
        id: event.id,
        type: event.type,
        actor_id: event.actorId,
        target_type: event.targetType,
        target_id: event.targetId,
        ip: event.ip,
        user_agent: event.userAgent,
        details: event.details,
        created_at: event.createdAt,
      })),
      total,
      page: query.page,
      limit: query.limit,
    };
  }
}
