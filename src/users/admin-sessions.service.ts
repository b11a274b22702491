import { Injectable } from '@nestjs/common';
import type { ClientInfo } from '../common/client-info.js';
import { assertMayActOn, notFound, AccessRepository } from '../rbac/index.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { UsersRepository } from '../identity/index.js';
import { AccountRecoveryService, AccountSessionsService, type SessionResponse } from '../account/index.js';
import type { SessionRef } from '../common/session-ref.js';

/**
 * Another user's sessions and authenticator app. Listing them shows where a person signs in from, so it follows the same
 * rule as ending them: nobody acts on an account more privileged than their own.
 */
@Injectable()
export class AdminSessionsService {
  constructor(
    private readonly users: UsersRepository,
    private readonly access: AccessRepository,
    private readonly sessions: AccountSessionsService,
    private readonly recovery: AccountRecoveryService,
  ) {}

  async list(actor: AuthUser, userId: string): Promise<{ items: SessionResponse[]; total: number }> {
    await this.assertMayActOnUser(actor, userId, 'user.sessions.list');
    return this.sessions.list(userId, { userId: actor.id, sessionId: actor.sessionId });
  }

  async revokeOne(actor: AuthUser, session: SessionRef, client: ClientInfo): Promise<Record<string, never>> {
    await this.assertMayActOnUser(actor, session.userId, 'user.sessions.revoke');
    return this.sessions.revokeOne(session, actor, client);
  }

  async revokeAll(actor: AuthUser, userId: string, client: ClientInfo): Promise<Record<string, never>> {
    await this.assertMayActOnUser(actor, userId, 'user.sessions.revoke');
    await this.sessions.revokeOthers({ userId }, actor, client);
    return {};
  }

  /** For a person who lost the device: the app and its recovery codes go, and every session ends. */
  async removeAuthenticatorApp(actor: AuthUser, userId: string, client: ClientInfo): Promise<Record<string, never>> {
    await this.assertMayActOnUser(actor, userId, 'user.totp.remove');
    return this.recovery.removeAppAsAdmin(userId, actor, client);
  }

  private async assertMayActOnUser(actor: AuthUser, userId: string, action: string): Promise<void> {
    const access = await this.access.findEffectiveAccess(userId);
    if (!access) throw notFound('User');
    assertMayActOn(actor, { type: 'user', id: userId }, access.permissions, action);
  }
}
