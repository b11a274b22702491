import { Controller, Get, Query } from '@nestjs/common';
import { Permissions, RequirePermissions } from '@auth-rbac/nest-guard';
import { DocumentRoute, page, ref } from '../common/route-doc.js';
import { ListOrganizationsQuery } from './organizations.dto.js';
import { OrganizationsService } from './organizations.service.js';

/**
 * Every organization, for instance administrators: `GET /api/organizations` lists only the
 * caller's own, and an administrator manages customers they do not belong to (decision 061).
 */
@Controller('admin/organizations')
export class AdminOrganizationsController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Get()
  @RequirePermissions(Permissions.OrganizationsView)
  @DocumentRoute({
    summary: 'Every organization, newest first; search matches a fragment of the slug or the name',
    data: page(ref('Organization')),
  })
  list(@Query() query: ListOrganizationsQuery) {
    return this.organizations.listAll(query);
  }
}
