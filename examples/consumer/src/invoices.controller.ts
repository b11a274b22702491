import { Controller, Get, Param } from '@nestjs/common';
import {
  AuthUser,
  CurrentUser,
  OrganizationParam,
  OrganizationPermissions,
  RequirePermissions,
} from '@auth-rbac/nest-guard';

/**
 * A route guarded per organization: only an organization token of the path's organization passes
 * (403 ORGANIZATION_REQUIRED for an ordinary token, ORGANIZATION_MISMATCH for another's), and the
 * caller's permissions in that organization are judged.
 */
@Controller('orgs/:orgId')
export class InvoicesController {
  @OrganizationParam('orgId')
  @RequirePermissions(OrganizationPermissions.MembersView)
  @Get('invoices')
  invoices(@Param('orgId') orgId: string, @CurrentUser() user: AuthUser) {
    return {
      success: true,
      data: { organization_id: orgId, viewer: user.id, token_organization: user.organizationId },
    };
  }
}
