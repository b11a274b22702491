import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AccountChangesRepository, UsersRepository, type AccountChanges } from '../identity/index.js';
import { AuditLog, type AuditEventType } from '../audit/index.js';
import { PasswordResetTokensRepository, SessionsRepository } from '../sessions/index.js';
import type { SessionRevocationReason } from '../infra/database/entities/session.entity.js';
import type { ClientInfo } from '../common/client-info.js';
import { MailService } from '../infra/messaging/mail.service.js';
import { AuthzVersions, notFound } from '../rbac/index.js';
import { Transactions } from '../infra/database/transactions.js';
import type { Actor } from '../common/actor.js';
import { accountAuditEntry } from './account-audit.js';

/** The fields whose change ends what was issued to the old identity. */
export type IdentityField = 'email' | 'mobile' | 'password';
export type ChangedField = 'name' | IdentityField;

export interface AccountChangeRequest {
  userId: string;
  /**
   * Runs in the change's transaction once the user's row is locked, before anything changes; may
   * refuse by throwing. A password reset consumes its token here, so the token and the change
   * commit together, and every change takes the user's lock first (no lock-order deadlocks).
   */
  beforeChange?: (manager: EntityManager) => Promise<void>;
  /** The new values; a field left undefined, or equal to the current value, is not changed. */
  changes: AccountChanges;
  /** Who made the change: an administrator or a service client; absent, the user themselves (as a password reset proves). */
  actor?: Actor;
  /** The one audit event that records the change. */
  auditType: AuditEventType;
  revocationReason: SessionRevocationReason;
  /** The account holder's own session, kept when they change their identity themselves. */
  keepSessionId?: string;
  client?: ClientInfo;
}

const FIELD_NAMES: Record<IdentityField, string> = {
  email: 'email address',
  mobile: 'mobile number',
  password: 'password',
};

/**
 * The one way an account's name, email, mobile or password changes. What was issued to the old
 * identity ends with it (OWASP ASVS V3.3, Keycloak): in the change's transaction every session of
 * the user but `keepSessionId` is revoked, every outstanding reset token voided and every pending
 * email or mobile change ended; after the
 * commit the authorization versions are bumped (access tokens die at once on every instance), the
 * previous email address is told, and one audit event is written.
 */
@Injectable()
export class IdentityChangeService {
  private readonly logger = new Logger('IdentityChange');

  constructor(
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly resetTokens: PasswordResetTokensRepository,
    private readonly accountChanges: AccountChangesRepository,
    private readonly versions: AuthzVersions,
    private readonly mail: MailService,
    private readonly audit: AuditLog,
  ) {}

  async change(request: AccountChangeRequest): Promise<{ userId: string; changed: ChangedField[] }> {
    const { userId, previousEmail, changed } = await this.transactions.run(async (manager) => {
      const userId = request.userId;
      // Locked, so two concurrent changes are applied one after the other and each sees the other's result.
      const current = await this.users.lockAccount(manager, userId);
      if (!current) throw notFound('User');
      await request.beforeChange?.(manager);
      const changed = changedFields(current, request.changes);
      if (changed.length > 0) {
        await this.users.updateAccount(manager, userId, pick(request.changes, changed));
      }
      if (changed.some(isIdentityField)) {
        await this.endIssued(manager, userId, request.revocationReason, request.keepSessionId);
      }
      return { userId, previousEmail: current.email, changed };
    });
    if (changed.length > 0) await this.versions.bumpUser(userId);
    const identityChanged = changed.filter(isIdentityField);
    if (identityChanged.length > 0) await this.notify(userId, previousEmail, identityChanged);
    await this.audit.record(accountAuditEntry(request, userId, { fields: changed }));
    return { userId, changed };
  }

  /**
   * Ends, in the caller's transaction, what was issued to the account: its sessions (but
   * `keepSessionId`), outstanding reset tokens and pending email or mobile changes. The caller
   * bumps the user's authorization version after the commit (`endedAfterCommit`), so access
   * tokens die at once on every instance. Identity changes and disabling share it.
   */
  async endIssued(
    manager: EntityManager,
    userId: string,
    reason: SessionRevocationReason,
    keepSessionId?: string,
  ): Promise<void> {
    await this.sessions.revoke(manager, { userId, exceptSessionId: keepSessionId }, reason);
    await this.resetTokens.voidAllOfUser(manager, userId);
    // A pending email or mobile change was asked for under the old identity (its own request,
    // when it is what applies here, was consumed by beforeChange).
    await this.accountChanges.endAllOfUser(manager, userId);
  }

  /** After the commit of `endIssued`: every instance drops its cached caller of the user. */
  async endedAfterCommit(userId: string): Promise<void> {
    await this.versions.bumpUser(userId);
  }

  /**
   * Fixed text only, to the address the account had before: never a name or anything else a user
   * chose, and never the new address, which may be an attacker's.
   */
  private async notify(userId: string, previousEmail: string, fields: IdentityField[]): Promise<void> {
    const what = fields.map((field) => FIELD_NAMES[field]);
    const list = what.length === 1 ? what[0] : `${what.slice(0, -1).join(', ')} and ${what[what.length - 1]}`;
    try {
      await this.mail.send({
        to: previousEmail,
        subject: 'Your account details were changed',
        text:
          `The ${list} of your account ${what.length === 1 ? 'was' : 'were'} changed, and every device signed in ` +
          `to the account has been signed out.\n\nIf you made this change, or asked for it, there is nothing to do. ` +
          `If you did not, contact your administrator at once.\n`,
      });
    } catch (error) {
      // The change is committed; a lost notice is an operational problem, not the caller's.
      this.logger.error(`Change notice for user ${userId} could not be sent: ${(error as Error).message}`);
    }
  }
}

function isIdentityField(field: ChangedField): field is IdentityField {
  return field !== 'name';
}

function changedFields(
  current: { name: string; email: string; mobile: string | null },
  changes: AccountChanges,
): ChangedField[] {
  const changed: ChangedField[] = [];
  if (changes.name !== undefined && changes.name !== current.name) changed.push('name');
  if (changes.email !== undefined && changes.email !== current.email) changed.push('email');
  if (changes.mobile !== undefined && changes.mobile !== current.mobile) changed.push('mobile');
  // A hash never equals the stored one (random salt): setting a password is always a change.
  if (changes.passwordHash !== undefined) changed.push('password');
  return changed;
}

function pick(changes: AccountChanges, fields: ChangedField[]): AccountChanges {
  return {
    name: fields.includes('name') ? changes.name : undefined,
    email: fields.includes('email') ? changes.email : undefined,
    mobile: fields.includes('mobile') ? changes.mobile : undefined,
    passwordHash: fields.includes('password') ? changes.passwordHash : undefined,
  };
}
