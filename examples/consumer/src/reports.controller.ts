import { Controller, Get } from '@nestjs/common';
import { AuthUser, CurrentUser, Permissions, Public, RequirePermissions } from '@auth-rbac/nest-guard';

/** One open route and one route that needs `contents.view`; every other route would need a token. */
@Controller()
export class ReportsController {
  @Public()
  @Get('health')
  health() {
    return { success: true, data: { status: 'ok' } };
  }

  @RequirePermissions(Permissions.ContentsView)
  @Get('reports')
  reports(@CurrentUser() user: AuthUser) {
    return {
      success: true,
      data: { items: [{ id: 'weekly', title: 'Weekly report' }], total: 1, viewer: { id: user.id, email: user.email } },
    };
  }
}
