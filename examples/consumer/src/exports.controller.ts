import { Controller, Get } from '@nestjs/common';
import { RequirePermissions } from '@auth-rbac/nest-guard';

/** A route needing a permission the auth service may not have: with strictPermissions the service refuses to start. */
@Controller()
export class ExportsController {
  @RequirePermissions('reports.export')
  @Get('exports')
  exports() {
    return { success: true, data: { items: [], total: 0 } };
  }
}
