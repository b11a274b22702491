import { Injectable } from '@nestjs/common';
import { AuditLog } from '../core/audit/audit-log.service.js';
import type { ClientInfo } from '../core/sessions/session.service.js';
import { SessionsRepository } from '../core/sessions/sessions.repository.js';
import { AuthzVersions } from '../core/authz/authz-versions.js';
import { notFound } from '../core/authz/rbac-errors.js';
import { Transactions } from '../database/transactions.js';

export interface SessionResponse {
  id: string;
  created_at: Date;
  last_used_at: Date | null;
  ip: string | null;
  user_agent: string | null;
  current: boolean;
}

/**
 * A user's live sessions: listing them and ending them. An ended session's tokens are refused at
 * their next use on every instance, as after a logout: the row is revoked, then the user's
 * authorization version is bumped so cached callers are dropped.
 */
@Injectable()
export class AccountSessionsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly sessions: SessionsRepository,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
  ) {}

  async list(userId: string, currentSessionId?: string): Promise<{ items: SessionResponse[]; total: number }> {
    const rows = await this.sessions.findLiveOfUser(this.transactions.manager, userId);
    const items = rows.map((row) => ({ ...row, current: row.id === currentSessionId }));
    return { items, total: items.length };
  }

  /** Ends one live session of the user; any other id (someone else's, ended, unknown) is 404. */
  async revokeOne(
    userId: string,
    sessionId: string,
    actorId: string,
    client: ClientInfo,
  ): Promise<Record<string, never>> {
    const rows = await this.sessions.revoke(
      this.transactions.manager,
      { sessionId, userId },
      actorId === userId ? 'user_revoked' : 'admin',
    );
    if (rows.length === 0) throw notFound('Session');
    await this.versions.bumpUser(userId);
    await this.audit.record({
      type: 'session.revoke',
      actorId,
      targetType: 'session',
      targetId: sessionId,
      client,
      details: { user_id: userId },
    });
    return {};
  }

  /** Ends every live session of the user but `keepSessionId` (all of them when absent). */
  async revokeOthers(
    userId: string,
    keepSessionId: string | undefined,
    actorId: string,
    client: ClientInfo,
  ): Promise<{ revoked: number }> {
    const rows = await this.sessions.revoke(
      this.transactions.manager,
      { userId, exceptSessionId: keepSessionId },
      actorId === userId ? 'user_revoked' : 'admin',
    );
    if (rows.length > 0) await this.versions.bumpUser(userId);
    await this.audit.record({
      type: 'session.revoke_others',
      actorId,
      targetType: 'user',
      targetId: userId,
      client,
      details: { revoked: rows.length },
    });
    return { revoked: rows.length };
  }
}
