import { Injectable } from '@nestjs/common';
import type { ClientInfo } from '../core/sessions/session.service.js';
import { assertMayActOn } from '../core/authz/privilege-refusal.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { notFound } from '../core/authz/rbac-errors.js';
import { UsersRepository } from '../core/users/users.repository.js';
import { AccountSessionsService, type SessionResponse } from './account-sessions.service.js';

/**
 * Another user's sessions. Listing them shows where a person signs in from, so it follows the same
 * rule as ending them: nobody acts on an account more privileged than their own.
 */
@Injectable()
export class AdminSessionsService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: AccountSessionsService,
  ) {}

  async list(actor: AuthUser, userId: string): Promise<{ items: SessionResponse[]; total: number }> {
    await this.assertMayActOnUser(actor, userId, 'user.sessions.list');
    return this.sessions.list(userId, actor.id === userId ? actor.sessionId : undefined);
  }

  async revokeOne(
    actor: AuthUser,
    userId: string,
    sessionId: string,
    client: ClientInfo,
  ): Promise<Record<string, never>> {
    await this.assertMayActOnUser(actor, userId, 'user.sessions.revoke');
    return this.sessions.revokeOne(userId, sessionId, actor.id, client);
  }

  async revokeAll(actor: AuthUser, userId: string, client: ClientInfo): Promise<Record<string, never>> {
    await this.assertMayActOnUser(actor, userId, 'user.sessions.revoke');
    await this.sessions.revokeOthers(userId, undefined, actor.id, client);
    return {};
  }

  private async assertMayActOnUser(actor: AuthUser, userId: string, action: string): Promise<void> {
    const access = await this.users.findEffectiveAccess(userId);
    if (!access) throw notFound('User');
    assertMayActOn(actor, { type: 'user', id: userId }, access.permissions, action);
  }
}
