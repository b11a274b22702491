import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { Session, type SessionRevocationReason } from '../../database/entities/session.entity.js';
import { auditInsertSql, type AuditRow } from '../audit/audit-events.repository.js';
import { clearAttemptsSql } from '../lockout/login-failures.repository.js';

/** Which live sessions a revocation ends: one session, or every session of a user but one. */
export type SessionRevocationScope =
  { sessionId: string; userId?: string } | { userId: string; exceptSessionId?: string };

/** A live session as its holder (or an administrator) sees it. */
export interface LiveSessionRow {
  id: string;
  created_at: Date;
  last_used_at: Date | null;
  ip: string | null;
  user_agent: string | null;
}

/** What a refresh needs to know of a session and its user, read in one round trip. */
export interface RotationState {
  user_id: string;
  generation: number;
  refresh_token_hash: string;
  expires_at: Date;
  revoked: boolean;
  auth_time: Date;
  amr: string[];
  email: string;
  name: string;
  mobile: string | null;
}

@Injectable()
export class SessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A new session and, in the same statement, what its sign-in completes: the audit event, and the
   * end of the lockout count of `attemptsOf` (the account's failed attempts start over).
   */
  async insert(
    session: {
      id: string;
      userId: string;
      generation: number;
      refreshTokenHash: string;
      expiresAt: Date;
      ip: string | null;
      userAgent: string | null;
      authTime: Date;
      amr: string[];
    },
    signIn: { event?: AuditRow; attemptsOf?: string } = {},
  ): Promise<void> {
    const params: unknown[] = [
      session.id,
      session.userId,
      session.generation,
      session.refreshTokenHash,
      session.expiresAt,
      session.ip,
      session.userAgent,
      session.authTime,
      session.amr,
    ];
    const parts = [
      `INSERT INTO sessions (id, user_id, generation, refresh_token_hash, expires_at, ip, user_agent, auth_time, amr)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    ];
    if (signIn.attemptsOf !== undefined) {
      params.push(signIn.attemptsOf);
      parts.push(clearAttemptsSql(params.length));
    }
    if (signIn.event) {
      const audit = auditInsertSql(signIn.event, params.length + 1);
      params.push(...audit.params);
      parts.push(audit.sql);
    }
    // Data-modifying statements in WITH all run, referenced or not, in the one statement.
    const last = parts.pop()!;
    const sql = parts.length === 0 ? last : `WITH ${parts.map((part, i) => `w${i} AS (${part})`).join(', ')} ${last}`;
    await this.dataSource.query(sql, params);
  }

  /** The session row, locked until the caller's transaction ends (the refresh's slow path). */
  findForUpdate(manager: EntityManager, sessionId: string): Promise<Session | null> {
    return manager
      .getRepository(Session)
      .createQueryBuilder('session')
      .setLock('pessimistic_write')
      .where('session.id = :id', { id: sessionId })
      .getOne();
  }

  /** Records a rotation under the lock `findForUpdate` took. */
  async setGeneration(manager: EntityManager, sessionId: string, generation: number, refreshTokenHash: string) {
    await manager.update(Session, { id: sessionId }, { generation, refreshTokenHash, lastUsedAt: new Date() });
  }

  /**
   * A re-authentication under the lock `findForUpdate` took: the session moves to its next
   * generation (the new refresh token) and records the new proof of presence.
   */
  async recordReauthentication(
    manager: EntityManager,
    change: { sessionId: string; generation: number; refreshTokenHash: string; authTime: Date; amr: string[] },
  ): Promise<void> {
    await manager.update(
      Session,
      { id: change.sessionId },
      {
        generation: change.generation,
        refreshTokenHash: change.refreshTokenHash,
        authTime: change.authTime,
        amr: change.amr,
        lastUsedAt: new Date(),
      },
    );
  }

  async findRotationState(sessionId: string): Promise<RotationState | null> {
    const [row]: RotationState[] = await this.dataSource.query(
      `SELECT s.user_id, s.generation, s.refresh_token_hash, s.expires_at, s.revoked_at IS NOT NULL AS revoked,
              s.auth_time, s.amr, u.email, u.name, u.mobile
         FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.id = $1`,
      [sessionId],
    );
    return row ?? null;
  }

  /**
   * Compare-and-set of one rotation: moves the session from `generation` (whose refresh token
   * hashes to `presentedHash`) to the next, only while it is live and its user's email is still
   * the one the new tokens carry. The row lock of the UPDATE orders parallel refreshes: the
   * second finds the generation moved on and changes nothing. Answers whether it rotated.
   */
  async advanceGeneration(
    rotation: {
      sessionId: string;
      generation: number;
      presentedHash: string;
      nextHash: string;
      email: string;
    },
    event: AuditRow,
  ): Promise<boolean> {
    // The event is written only if the row moved: the insert selects from the update's result.
    const audit = auditInsertSql(event, 6);
    const written: unknown[] = await this.dataSource.query(
      `WITH advanced AS (
         UPDATE sessions s SET generation = s.generation + 1, refresh_token_hash = $4, last_used_at = now(), updated_at = now()
          WHERE s.id = $1 AND s.generation = $2 AND s.refresh_token_hash = $3
            AND s.revoked_at IS NULL AND s.expires_at > now()
            AND EXISTS (SELECT 1 FROM users u WHERE u.id = s.user_id AND u.email = $5)
         RETURNING s.id)
       ${audit.sql} FROM advanced RETURNING id`,
      [
        rotation.sessionId,
        rotation.generation,
        rotation.presentedHash,
        rotation.nextHash,
        rotation.email,
        ...audit.params,
      ],
    );
    return written.length === 1;
  }

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

  /** Whether the session is live: neither revoked (logout, revocation, identity change, reset) nor expired. */
  async isLive(manager: EntityManager, sessionId: string | null): Promise<boolean> {
    if (!sessionId) return false;
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM sessions WHERE id = $1 AND revoked_at IS NULL AND expires_at > now()`,
      [sessionId],
    );
    return rows.length === 1;
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
