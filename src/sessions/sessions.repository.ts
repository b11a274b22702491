import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { SessionRevocationReason } from '../infra/database/entities/session.entity.js';
import { auditEventInsert, type AuditRow } from '../audit/index.js';
import { revocationEvents } from '../events/index.js';
import { maySignInSql } from '../identity/index.js';
import { clearFailuresStatement } from '../lockout/index.js';
import { queryNamed } from '../infra/database/named-statements.js';
import { SessionEndings, type EndedSession } from './session-endings.js';

/** Which live sessions a revocation ends: one session, or every session of a user but one. */
export type SessionRevocationScope =
  | { sessionId: string; userId?: string }
  | { userId: string; exceptSessionId?: string }
  | { userId: string; clientId: string };

/**
 * A row of `sessions`, the one shape the table's statements answer in: every column aliased to
 * its camelCase name (`user_id AS "userId"`).
 */
export interface SessionRow {
  id: string;
  userId: string;
  generation: number;
  refreshTokenHash: string;
  expiresAt: Date;
  revokedAt: Date | null;
  revokedReason: SessionRevocationReason | null;
  ip: string | null;
  userAgent: string | null;
  authTime: Date;
  amr: string[];
  lastUsedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  clientId: string | null;
  parentSessionId: string | null;
  scope: string | null;
  audience: string | null;
}

const SESSION_COLUMNS = `id, user_id AS "userId", generation, refresh_token_hash AS "refreshTokenHash",
  expires_at AS "expiresAt", revoked_at AS "revokedAt", revoked_reason AS "revokedReason", ip,
  user_agent AS "userAgent", auth_time AS "authTime", amr, last_used_at AS "lastUsedAt",
  created_at AS "createdAt", updated_at AS "updatedAt", client_id AS "clientId",
  parent_session_id AS "parentSessionId", scope, audience`;

/** A live session as its holder (or an administrator) sees it. */
export type LiveSessionRow = Pick<SessionRow, 'id' | 'createdAt' | 'lastUsedAt' | 'ip' | 'userAgent' | 'clientId'> & {
  /** The registered name of the client the session was issued to (OpenID provider); null otherwise. */
  clientName: string | null;
};

/** What a rotation's new access token and its response need of the session and its user. */
export type RotatedSession = Pick<SessionRow, 'authTime' | 'amr' | 'clientId' | 'scope' | 'audience'> & {
  name: string;
  mobile: string | null;
};

/** What the token endpoint reads of a session before a refresh grant: whose it is, and whom it was issued to. */
export type SessionHolder = Pick<SessionRow, 'userId' | 'clientId' | 'scope'>;

/** What a session issued to a client of the OpenID provider carries into its tokens. */
export interface SessionGrant {
  clientId: string;
  parentSessionId: string | null;
  scope: string;
  audience: string | null;
}

/** A session a revocation ended. */
export type RevokedSessionRow = EndedSession;

/** What the statements that end sessions answer of each (`ended` their CTE of sessions rows). */
const ENDED_COLUMNS = (ended: string) => `${ended}.id, ${ended}.user_id AS "userId", ${ended}.client_id AS "clientId",
  ${ended}.parent_session_id AS "parentSessionId",
  (SELECT c.backchannel_logout_uri FROM service_clients c WHERE c.client_id = ${ended}.client_id) AS "backchannelLogoutUri"`;

@Injectable()
export class SessionsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly endings: SessionEndings,
  ) {}

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
      /** A session issued to a client of the OpenID provider, under the browser sign-in it came from. */
      grant?: SessionGrant;
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
      session.grant?.clientId ?? null,
      session.grant?.parentSessionId ?? null,
      session.grant?.scope ?? null,
      session.grant?.audience ?? null,
    ];
    const parts = [
      // The sign-in is the session's first use: `last_used_at` starts with it, and each refresh moves it.
      `INSERT INTO sessions (id, user_id, generation, refresh_token_hash, expires_at, ip, user_agent, auth_time, amr,
                             last_used_at, client_id, parent_session_id, scope, audience)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CURRENT_TIMESTAMP, $10, $11, $12, $13)`,
    ];
    if (signIn.attemptsOf !== undefined) {
      params.push(signIn.attemptsOf);
      parts.push(clearFailuresStatement(`$${params.length}`));
    }
    if (signIn.event) {
      const audit = auditEventInsert(signIn.event, params.length + 1);
      params.push(...audit.params);
      parts.push(audit.sql);
    }
    // Data-modifying statements in WITH all run, referenced or not, in the one statement.
    const last = parts.pop()!;
    const sql = parts.length === 0 ? last : `WITH ${parts.map((part, i) => `w${i} AS (${part})`).join(', ')} ${last}`;
    // Every sign-in sends it: prepared once per connection (four variants at most).
    await queryNamed(this.dataSource, sql, params);
  }

  /** The session row, locked until the caller's transaction ends (the refresh's slow path). */
  async findForUpdate(manager: EntityManager, sessionId: string): Promise<SessionRow | null> {
    const [row]: SessionRow[] = await manager.query(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1 FOR UPDATE`,
      [sessionId],
    );
    return row ?? null;
  }

  /** Records a rotation under the lock `findForUpdate` took. */
  async setGeneration(manager: EntityManager, sessionId: string, generation: number, refreshTokenHash: string) {
    await manager.query(
      `UPDATE sessions SET generation = $2, refresh_token_hash = $3, last_used_at = $4, updated_at = CURRENT_TIMESTAMP
        WHERE id = $1`,
      [sessionId, generation, refreshTokenHash, new Date()],
    );
  }

  /**
   * A re-authentication under the lock `findForUpdate` took: the session moves to its next
   * generation (the new refresh token) and records the new proof of presence.
   */
  async recordReauthentication(
    manager: EntityManager,
    change: { sessionId: string; generation: number; refreshTokenHash: string; authTime: Date; amr: string[] },
  ): Promise<void> {
    await manager.query(
      `UPDATE sessions SET generation = $2, refresh_token_hash = $3, auth_time = $4, amr = $5, last_used_at = $6,
              updated_at = CURRENT_TIMESTAMP
        WHERE id = $1`,
      [change.sessionId, change.generation, change.refreshTokenHash, change.authTime, change.amr, new Date()],
    );
  }

  async findHolder(sessionId: string): Promise<SessionHolder | null> {
    const [row]: SessionHolder[] = await this.dataSource.query(
      `SELECT user_id AS "userId", client_id AS "clientId", scope FROM sessions WHERE id = $1`,
      [sessionId],
    );
    return row ?? null;
  }

  /**
   * Compare-and-set of one rotation, in one statement: moves the session from `generation` (whose
   * refresh token hashes to `presentedHash`) to the next, only while it is live, belongs to
   * `userId`, and its user may sign in and still has the email the new tokens carry; the audit
   * event is written only if the row moved (the insert selects from the update's result). The row
   * lock of the UPDATE orders parallel refreshes: the second finds the generation moved on and
   * changes nothing. Answers what the new access token needs of the session and its user, or null
   * when nothing moved (the caller then decides on the locked path).
   */
  async advanceGeneration(
    rotation: {
      sessionId: string;
      userId: string;
      generation: number;
      presentedHash: string;
      nextHash: string;
      email: string;
    },
    event: AuditRow,
  ): Promise<RotatedSession | null> {
    const audit = auditEventInsert(event, 7);
    // Every refresh sends it: prepared once per connection.
    const [row] = await queryNamed<RotatedSession>(
      this.dataSource,
      `WITH advanced AS (
         UPDATE sessions s SET generation = s.generation + 1, refresh_token_hash = $5, last_used_at = now(), updated_at = now()
           FROM users u
          WHERE s.id = $1 AND s.user_id = $2 AND s.generation = $3 AND s.refresh_token_hash = $4
            AND s.revoked_at IS NULL AND s.expires_at > now()
            AND u.id = s.user_id AND u.email = $6 AND ${maySignInSql('u')}
         RETURNING s.auth_time AS "authTime", s.amr, s.client_id AS "clientId", s.scope, s.audience, u.name, u.mobile),
       written AS (${audit.sql} FROM advanced)
       SELECT * FROM advanced`,
      [
        rotation.sessionId,
        rotation.userId,
        rotation.generation,
        rotation.presentedHash,
        rotation.nextHash,
        rotation.email,
        ...audit.params,
      ],
    );
    return row ?? null;
  }

  /**
   * Revokes the live sessions of the scope in the caller's transaction (or on its own with the
   * data source's manager) and returns them, so the caller can publish the change after commit.
   */
  async revoke(
    manager: EntityManager,
    scope: SessionRevocationScope,
    reason: SessionRevocationReason,
  ): Promise<RevokedSessionRow[]> {
    const params: unknown[] = [reason];
    const where = ['revoked_at IS NULL'];
    const condition = (sql: string, value: unknown) => {
      params.push(value);
      where.push(`${sql} $${params.length}`);
    };
    if ('sessionId' in scope) {
      // A browser sign-in at the OpenID provider ends with every client's session issued under it.
      params.push(scope.sessionId);
      where.push(`(id = $${params.length} OR parent_session_id = $${params.length})`);
      // Scoped to an owner, a session id of someone else's revokes nothing.
      if (scope.userId) condition('user_id =', scope.userId);
    } else if ('clientId' in scope) {
      // Every session of the person issued to one client (its access withdrawn by the person).
      condition('user_id =', scope.userId);
      condition('client_id =', scope.clientId);
    } else {
      condition('user_id =', scope.userId);
      if (scope.exceptSessionId) condition('id <>', scope.exceptSessionId);
    }
    // The events other services follow are written by the same statement: a revocation cannot
    // commit without them (`GET /api/auth/events`).
    const everySessionOfUser = !('sessionId' in scope) && !('clientId' in scope) && !scope.exceptSessionId;
    const rows: RevokedSessionRow[] = await manager.query(
      `WITH revoked AS (
         UPDATE sessions SET revoked_at = now(), revoked_reason = $1, updated_at = now()
          WHERE ${where.join(' AND ')} RETURNING id, user_id, client_id, parent_session_id
       ), told AS (${revocationEvents('revoked', everySessionOfUser ? 'credential-change' : 'session-revoked')})
       SELECT ${ENDED_COLUMNS('revoked')} FROM revoked`,
      params,
    );
    await this.endings.ended(manager, rows);
    return rows;
  }

  /**
   * The account's live sessions are about to go with it (its deletion cascades): those who must
   * hear of their end are told in the deletion's transaction.
   */
  async endWithAccount(manager: EntityManager, userId: string): Promise<void> {
    const rows: EndedSession[] = await manager.query(
      `SELECT ${ENDED_COLUMNS('s')} FROM sessions s
        WHERE s.user_id = $1 AND s.revoked_at IS NULL AND s.expires_at > now()`,
      [userId],
    );
    await this.endings.ended(manager, rows);
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
      `SELECT s.id, s.created_at AS "createdAt", s.last_used_at AS "lastUsedAt", s.ip, s.user_agent AS "userAgent",
              s.client_id AS "clientId", c.name AS "clientName"
         FROM sessions s LEFT JOIN service_clients c ON c.client_id = s.client_id
        WHERE s.user_id = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
        ORDER BY s.created_at DESC, s.id`,
      [userId],
    );
  }
}
