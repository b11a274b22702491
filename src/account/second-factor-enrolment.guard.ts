import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuditLog } from '../core/audit/audit-log.service.js';
import { IS_PUBLIC_KEY } from '@auth-rbac/nest-guard';
import { isPrivileged } from '../core/authz/privilege-policy.js';
import { ALLOWED_BEFORE_ENROLMENT_KEY } from '../common/before-enrolment.decorator.js';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { TwoFactorService } from '../core/second-factor/two-factor.service.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { UsersRepository } from '../core/users/users.repository.js';
import { isServiceCaller } from '../core/clients/client-tokens.service.js';

/**
 * REQUIRE_2FA_FOR_PRIVILEGED: a privileged account that has no second factor (no authenticator
 * app, and no SMS second factor) reaches only the routes marked `AllowedBeforeEnrolment` until it
 * enrols. Judged on every request from the account's state, not from a mark on the token, so
 * enrolling opens the account at once, and losing the second factor closes it again.
 */
@Injectable()
export class SecondFactorEnrolmentGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
    private readonly users: UsersRepository,
    private readonly twoFactor: TwoFactorService,
    private readonly audit: AuditLog,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.config.requireSecondFactorForPrivileged) return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(ALLOWED_BEFORE_ENROLMENT_KEY, targets)) return true;
    const request = context.switchToHttp().getRequest<{ user?: AuthUser; ip?: string }>();
    const user = request.user;
    // A service client (client credentials) has no second factor to enrol.
    if (!user || isServiceCaller(user) || !isPrivileged(user.roles, user.permissions)) return true;
    const profile = await this.users.findProfile(user.id);
    if ((await this.twoFactor.methodsFor({ id: user.id, mobile: profile?.mobile ?? null })).length > 0) return true;
    await this.audit.record({
      type: '2fa.enrolment_required',
      actorId: user.id,
      targetType: 'user',
      targetId: user.id,
      client: { ip: request.ip },
    });
    throw new AppException(
      'FORBIDDEN',
      'This account must enrol a second factor first: set up an authenticator app at /api/account/totp.',
      [{ required: 'second_factor_enrolment' }],
    );
  }
}
