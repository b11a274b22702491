import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/index.js';
import type { ClientInfo } from '../common/client-info.js';
import { SessionsRepository } from '../sessions/index.js';
import { AuthzVersions, notFound } from '../rbac/index.js';
import { Transactions } from '../infra/database/transactions.js';
import type { SessionRef } from '../common/session-ref.js';
import type { Actor } from '../common/actor.js';

export interface SessionResponse {
  id: string;
  created_at: Date;
  last_used_at: Date | null;
  ip: string | null;
  user_agent: string | null;
  /** The application the session was issued to through the OpenID provider; null for the API's own sign-ins. */
  client_name: string | null;
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

  /** The user's live sessions; `current` marks the caller's own one, when they list their own. */
  async list(userId: string, caller: SessionRef): Promise<{ items: SessionResponse[]; total: number }> {
    const rows = await this.sessions.findLiveOfUser(this.transactions.manager, userId);
    const current = caller.userId === userId ? caller.sessionId : undefined;
    const items = rows.map((row) => ({
      id: row.id,
      created_at: row.createdAt,
      last_used_at: row.lastUsedAt,
      ip: row.ip,
      user_agent: row.userAgent,
      client_name: row.clientName,
      current: row.id === current,
    }));
    return { items, total: items.length };
  }

  /** Ends one live session of the user; any other id (someone else's, ended, unknown) is 404. */
  async revokeOne(session: SessionRef, actor: Actor, client: ClientInfo): Promise<Record<string, never>> {
    const { userId, sessionId } = session;
    const rows = await this.sessions.revoke(
      this.transactions.manager,
      { sessionId, userId },
      actor.id === userId ? 'user_revoked' : 'admin',
    );
    if (rows.length === 0) throw notFound('Session');
    await this.versions.bumpUser(userId);
    await this.audit.record({
      type: 'session.revoke',
      actorId: actor.id,
      actorKind: actor.kind,
      targetType: 'session',
      targetId: sessionId,
      client,
      details: { user_id: userId },
    });
    return {};
  }

  /** Ends every live session of the user but `keepSessionId` (all of them when absent). */
  async revokeOthers(
    owner: { userId: string; keepSessionId?: string },
    actor: Actor,
    client: ClientInfo,
  ): Promise<{ revoked: number }> {
    const { userId, keepSessionId } = owner;
    const rows = await this.sessions.revoke(
      this.transactions.manager,
      { userId, exceptSessionId: keepSessionId },
      actor.id === userId ? 'user_revoked' : 'admin',
    );
    if (rows.length > 0) await this.versions.bumpUser(userId);
    await this.audit.record({
      type: 'session.revoke_others',
      actorId: actor.id,
      actorKind: actor.kind,
      targetType: 'user',
      targetId: userId,
      client,
      details: { revoked: rows.length },
    });
    return { revoked: rows.length };
  }
}
