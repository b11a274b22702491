import { Controller, Get, Query } from '@nestjs/common';
import { AdminList } from '../common/admin-list.decorator.js';
import { Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import { ListAuditEventsQuery } from './audit.dto.js';
import { AuditTrailService } from './audit-trail.service.js';
import { DocumentRoute, ref, page } from '../common/route-doc.js';

@Controller('admin/audit-events')
export class AuditController {
  constructor(private readonly trail: AuditTrailService) {}

  /** Newest first; `user_id` matches the actor or the target. */
  @Get()
  @AdminList()
  @RequirePermissions(Permissions.AuditView)
  @DocumentRoute({ summary: 'Audit events, newest first, a page at a time', data: page(ref('AuditEvent')) })
  list(@Query() query: ListAuditEventsQuery) {
    return this.trail.list(query);
  }
}
