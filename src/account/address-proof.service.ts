import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/index.js';
import type { ClientInfo } from '../common/client-info.js';
import { PasswordHasher, UpstreamIdentitiesRepository, UsersRepository } from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { PasskeysRepository, SecondFactorsRepository } from '../second-factor/index.js';
import { IdentityChangeService } from './identity-change.service.js';

/**
 * The first proof of an address ends what came before it (contract, "Upstream identity providers
 * and safe account linking"; Sudhodanan and Paverd, "Pre-hijacked accounts"). Whoever registered
 * an address nobody had proved may not be its holder: when someone signs in by proving they read
 * it, every session started before ends (announced as `credential-change`), the password set
 * before stops working (a reset sets a new one), outstanding reset links and pending email and
 * mobile changes end, and the authenticator app, recovery codes, passkeys and upstream identities
 * added before are removed, all in one transaction with the address's verification. The registration's own
 * verification link is not such a proof: it keeps the password (EmailVerificationService).
 */
@Injectable()
export class AddressProofService {
  constructor(
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly passwords: PasswordHasher,
    private readonly identityChange: IdentityChangeService,
    private readonly secondFactors: SecondFactorsRepository,
    private readonly passkeys: PasskeysRepository,
    private readonly identities: UpstreamIdentitiesRepository,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Marks `email` verified for the account; `first` when this was its first proof (and what came
   * before has ended), `already` when it had been proved, `mismatch` when the account has another
   * address. Call it before the proof's own session is started: that session is then the only one.
   */
  async proveAddress(userId: string, email: string, client: ClientInfo): Promise<'first' | 'already' | 'mismatch'> {
    if (await this.users.isEmailVerified(userId)) return 'already';
    // Argon2 before the transaction: it is slow and must not hold a connection.
    const voidedPassword = await this.passwords.unusableHash();
    const outcome = await this.transactions.run(async (manager) => {
      // The user's row first, as every change of the account takes it: one proof at a time.
      if (!(await this.users.lockAccount(manager, userId))) return 'mismatch' as const;
      const marked = await this.users.markEmailVerified(manager, userId, email);
      if (marked !== 'verified') return marked;
      await this.identityChange.endIssued(manager, userId, 'address_proof');
      await this.users.updateAccount(manager, userId, { passwordHash: voidedPassword, passwordSet: false });
      const app = await this.secondFactors.deleteTotp(manager, userId);
      const passkeys = await this.passkeys.deleteAllOfUser(manager, userId);
      const identities = await this.identities.deleteAllOfUser(manager, userId);
      return { app, passkeys, identities };
    });
    if (typeof outcome === 'string') return outcome;
    await this.identityChange.endedAfterCommit(userId);
    await this.audit.recordOnOwnAccount('account.address_proof', userId, client, {
      removed_app: outcome.app,
      removed_passkeys: outcome.passkeys,
      removed_identities: outcome.identities,
    });
    return 'first';
  }
}
