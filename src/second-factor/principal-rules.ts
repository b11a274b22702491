import type { CallerKind } from '@auth-rbac/nest-guard';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { isPrivileged } from '../rbac/index.js';
import { UsersRepository } from '../identity/index.js';
import { TwoFactorService } from './two-factor.service.js';

/** What the rules need to know of a caller. */
export interface PrincipalFacts {
  id: string;
  kind: CallerKind;
  roles: readonly string[];
  permissions: readonly string[];
}

/**
 * The rules every consumer of a caller applies, written once: the service's own enrolment guard
 * and introspection (and so every service on the guard package) call these functions, so neither
 * can drift from the other.
 *
 * REQUIRE_2FA_FOR_PRIVILEGED: a privileged account without a second factor (no authenticator app,
 * no SMS second factor) must enrol before anything else. It is judged from the account's state on
 * every call, not from a mark on the token, so enrolling opens the account at once and losing the
 * second factor closes it again.
 */
@Injectable()
export class PrincipalRules {
  constructor(
    private readonly config: AppConfig,
    private readonly users: UsersRepository,
    private readonly twoFactor: TwoFactorService,
  ) {}

  /** Whether this caller must enrol a second factor before it may hold any role or permission. */
  async mustEnrol(principal: PrincipalFacts): Promise<boolean> {
    if (!this.config.requireSecondFactorForPrivileged) return false;
    // A service client (client credentials) is no person: it has no second factor to enrol.
    if (principal.kind === 'service') return false;
    if (!isPrivileged(principal.roles, principal.permissions)) return false;
    const profile = await this.users.findProfile(principal.id);
    return (await this.twoFactor.methodsFor({ id: principal.id, mobile: profile?.mobile ?? null })).length === 0;
  }

  /**
   * The caller as another service may see it: while it must enrol, no role and no permission (the
   * service's own enrolment routes still answer it, through `mustEnrol`).
   */
  async forConsumers<T extends PrincipalFacts>(principal: T): Promise<T> {
    return (await this.mustEnrol(principal)) ? { ...principal, roles: [], permissions: [] } : principal;
  }
}
