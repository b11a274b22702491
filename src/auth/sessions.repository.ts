import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { SessionRevocationReason } from './session.entity.js';

/** Which live sessions a revocation ends: one session, or every session of a user but one. */
export type SessionRevocationScope = { sessionId: string; userId?: string } | { userId: string; exceptSessionId?: string };

/** A live session as its holder (or an administrator) sees it. */
export interface LiveSessionRow {
  id: string;
  created_at: Date;
  last_used_at: Date | null;
  ip: string | null;
  user_agent: string | null;
}

@Injectable()
export class SessionsRepository {
  /**
   * Revokes the live sessions of the scope in the caller's transaction (or on its own with the
   * data source's manager) and returns them, so the caller can publish the change after commit.
   */
  async revoke(
    manager: EntityManager,
    scope: SessionRevocationScope,
    reason: SessionRevocationReason,
  ): Promise<{ id: string; user_id: string }[]> {
    const params: unknown[] = [reason];
    const where = ['revoked_at IS NULL'];
    const condition = (sql: string, value: unknown) => {
      params.push(value);
      where.push(`${sql} $${params.length}`);
    };
    if ('sessionId' in scope) {
      condition('id =', scope.sessionId);
      // Scoped to an owner, a session id of someone else's revokes nothing.
      if (scope.userId) condition('user_id =', scope.userId);
    } else {
      condition('user_id =', scope.userId);
      if (scope.exceptSessionId) condition('id <>', scope.exceptSessionId);
    }
    const [rows]: [{ id: string; user_id: string }[], number] = await manager.query(
      `UPDATE sessions SET revoked_at = now(), revoked_reason = $1, updated_at = now()
        WHERE ${where.join(' AND ')} RETURNING id, user_id`,
      params,
    );
    return rows;
  }

  /** The user's live sessions, newest first. */
  findLiveOfUser(manager: EntityManager, userId: string): Promise<LiveSessionRow[]> {
    return manager.query(
      `SELECT id, created_at, last_used_at, ip, user_agent FROM sessions
        WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()
        ORDER BY created_at DESC, id`,
      [userId],
    );
  }
}
