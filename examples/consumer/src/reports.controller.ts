import { Controller, Get } from '@nestjs/common';
import { AuthGuardHealth, AuthUser, CurrentUser, Permissions, Public, RequirePermissions } from '@auth-rbac/nest-guard';

const REPORTS = { items: [{ id: 'weekly', title: 'Weekly report' }], total: 1 };

/**
 * Open routes (health, a sample report) and one route that needs `contents.view`; every other
 * route would need a token.
 */
@Controller()
export class ReportsController {
  constructor(private readonly guard: AuthGuardHealth) {}

  /** How revocations reach this service now (events live, or the fallback). */
  @Public()
  @Get('health/auth')
  authHealth() {
    return { success: true, data: this.guard.health() };
  }

  @Public()
  @Get('health')
  health() {
    return { success: true, data: { status: 'ok' } };
  }

  @RequirePermissions(Permissions.ContentsView)
  @Get('reports')
  reports(@CurrentUser() user: AuthUser) {
    return { success: true, data: { ...REPORTS, viewer: { id: user.id, email: user.email } } };
  }

  /** The same list for anyone, signed in or not: `@Public()` opens one route of a guarded service. */
  @Public()
  @Get('reports/sample')
  sample() {
    return { success: true, data: { ...REPORTS, viewer: null } };
  }
}
