import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuditLog } from '../audit/index.js';
import { IS_PUBLIC_KEY } from '@auth-rbac/nest-guard/internal';
import { ALLOWED_BEFORE_ENROLMENT_KEY } from '../common/before-enrolment.decorator.js';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { PrincipalRules } from '../second-factor/index.js';
import type { AuthUser } from '@auth-rbac/nest-guard';

/**
 * REQUIRE_2FA_FOR_PRIVILEGED: a privileged account that has no second factor (no authenticator
 * app, and no SMS second factor) reaches only the routes marked `AllowedBeforeEnrolment` until it
 * enrols (PrincipalRules.mustEnrol, the rule introspection applies too).
 */
@Injectable()
export class SecondFactorEnrolmentGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
    private readonly rules: PrincipalRules,
    private readonly audit: AuditLog,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.config.requireSecondFactorForPrivileged) return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(ALLOWED_BEFORE_ENROLMENT_KEY, targets)) return true;
    const request = context.switchToHttp().getRequest<{ user?: AuthUser; ip?: string }>();
    const user = request.user;
    // The one rule introspection applies too (PrincipalRules), so no consumer can drift from it.
    if (!user || !(await this.rules.mustEnrol(user))) return true;
    await this.audit.recordOnOwnAccount('2fa.enrolment_required', user.id, { ip: request.ip });
    throw new AppException(
      'FORBIDDEN',
      'This account must enrol a second factor first: set up an authenticator app at /api/account/totp.',
      [{ required: 'second_factor_enrolment' }],
    );
  }
}
