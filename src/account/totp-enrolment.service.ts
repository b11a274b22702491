import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/index.js';
import { SignInMethodNotices } from './sign-in-method-notices.js';
import type { ClientInfo } from '../common/client-info.js';
import { AppException } from '../common/app-exception.js';
import { AuthzVersions } from '../rbac/index.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { ReauthenticationService } from './reauthentication.service.js';
import {
  RecoveryCodesService,
  SecondFactorsRepository,
  TotpService,
  type TotpEnrolment,
} from '../second-factor/index.js';
import { Transactions } from '../infra/database/transactions.js';

/** The holder's side of the authenticator app: start, confirm with a first code, turn off. */
@Injectable()
export class TotpEnrolmentService {
  constructor(
    private readonly transactions: Transactions,
    private readonly totp: TotpService,
    private readonly recoveryCodes: RecoveryCodesService,
    private readonly repository: SecondFactorsRepository,
    private readonly reauthentication: ReauthenticationService,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
    private readonly notices: SignInMethodNotices,
  ) {}

  async start(user: AuthUser, client: ClientInfo): Promise<TotpEnrolment> {
    const enrolment = await this.totp.startEnrolment(user);
    await this.audit.recordOnOwnAccount('totp.enrolment_start', user.id, client);
    return enrolment;
  }

  /** A first right code turns the app on and returns ten recovery codes, shown this once. */
  async confirm(user: AuthUser, code: string, client: ClientInfo): Promise<{ recovery_codes: string[] }> {
    if (await this.totp.isEnrolled(user.id)) {
      throw new AppException('CONFLICT', 'An authenticator app is already enrolled; remove it first.');
    }
    let recoveryCodes: string[] | null = null;
    // Argon2 before the transaction: it is slow and must not hold a connection.
    const fresh = await this.recoveryCodes.prepare();
    await this.reauthentication.attempt(
      user.id,
      client,
      () =>
        this.transactions.run(async (manager) => {
          if (!(await this.totp.check(manager, user.id, code, true))) return false;
          recoveryCodes = await this.recoveryCodes.store(manager, user.id, fresh);
          return true;
        }),
      () => new AppException('INVALID_OTP', 'The code is wrong, or no enrolment was started.'),
    );
    // Enrolment changes what this account may reach when enrolment is required.
    await this.versions.bumpUser(user.id);
    await this.audit.recordOnOwnAccount('totp.enable', user.id, client);
    await this.notices.tell(user.id, 'app-added');
    return { recovery_codes: recoveryCodes! };
  }

  /**
   * Removing the app needs a fresh re-authentication (the route's `@RequireFreshAuth()`) whose
   * proof included a second factor: a password alone, even a fresh one, cannot remove the factor
   * that stands beside it (403 REAUTHENTICATION_REQUIRED).
   */
  async disable(user: AuthUser, client: ClientInfo): Promise<Record<string, never>> {
    if (!(await this.totp.isEnrolled(user.id)))
      throw new AppException('NOT_FOUND', 'No authenticator app is enrolled.');
    if (!user.amr.includes('otp') && !user.amr.includes('mfa')) {
      throw new AppException(
        'REAUTHENTICATION_REQUIRED',
        'Removing the authenticator app needs a re-authentication with a second factor: an app or recovery code.',
      );
    }
    await this.transactions.run((manager) => this.repository.deleteTotp(manager, user.id));
    await this.versions.bumpUser(user.id);
    await this.audit.recordOnOwnAccount('totp.disable', user.id, client);
    await this.notices.tell(user.id, 'app-removed');
    return {};
  }

  /**
   * `POST /api/account/recovery-codes` (fresh authentication): ten new codes for an account with an
   * authenticator app, the old ones void at once (replaced in one transaction).
   */
  async regenerateRecoveryCodes(user: AuthUser, client: ClientInfo): Promise<{ recovery_codes: string[] }> {
    if (!(await this.totp.isEnrolled(user.id)))
      throw new AppException('NOT_FOUND', 'No authenticator app is enrolled.');
    // Argon2 before the transaction: it is slow and must not hold a connection.
    const fresh = await this.recoveryCodes.prepare();
    const codes = await this.transactions.run(async (manager) => {
      // Removed meanwhile: no codes for an account without an app.
      if (!(await this.totp.isEnrolled(user.id, manager)))
        throw new AppException('NOT_FOUND', 'No authenticator app is enrolled.');
      return this.recoveryCodes.store(manager, user.id, fresh);
    });
    await this.audit.recordOnOwnAccount('recovery_codes.regenerate', user.id, client);
    await this.notices.tell(user.id, 'recovery-codes-made');
    return { recovery_codes: codes };
  }
}
