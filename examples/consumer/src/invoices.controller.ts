import { Controller, Get, Param, Post } from '@nestjs/common';
import { AuthUser, CurrentUser, OrganizationParam, RequirePermissions } from '@auth-rbac/nest-guard';
import { Invoices } from './invoices.js';

@Controller('orgs/:orgId/invoices')
export class InvoicesController {
  constructor(private readonly invoices: Invoices) {}

  // Only a token of this organization passes (ordinary token: 403 ORGANIZATION_REQUIRED;
  // another organization's: 403 ORGANIZATION_MISMATCH); then its permissions there are judged.
  @Get()
  @OrganizationParam('orgId')
  @RequirePermissions('invoices.view')
  list(@Param('orgId') orgId: string) {
    return this.invoices.list(orgId);
  }

  @Post(':id/approve')
  @OrganizationParam('orgId')
  @RequirePermissions('invoices.approve')
  approve(@Param('orgId') orgId: string, @Param('id') id: string, @CurrentUser() user: AuthUser) {
    return this.invoices.approve(orgId, id, user.id); // user.organizationId === orgId here
  }
}
