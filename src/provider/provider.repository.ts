import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { maySignInSql } from '../identity/index.js';

/** A browser's sign-in at the provider, as its cookie finds it, with the session it is bound to. */
export interface BrowserSessionRow {
  sessionId: string;
  userId: string;
  authTime: Date;
  amr: string[];
}

/** A row of `provider_authorization_codes`. */
export interface AuthorizationCodeRow {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  nonce: string | null;
  scope: string;
  resource: string | null;
  sessionId: string;
  userId: string;
  expiresAt: Date;
  usedAt: Date | null;
  issuedSessionId: string | null;
}

const CODE_COLUMNS = `code_hash AS "codeHash", client_id AS "clientId", redirect_uri AS "redirectUri",
  code_challenge AS "codeChallenge", nonce, scope, resource, session_id AS "sessionId", user_id AS "userId",
  expires_at AS "expiresAt", used_at AS "usedAt", issued_session_id AS "issuedSessionId"`;

/**
 * The provider's own tables: the single sign-on cookies (`provider_browser_sessions`), the
 * authorization codes and the consents. Cookies and codes are kept as SHA-256 digests only.
 */
@Injectable()
export class ProviderRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insertBrowserSession(tokenHash: string, sessionId: string): Promise<void> {
    await this.dataSource.query(`INSERT INTO provider_browser_sessions (token_hash, session_id) VALUES ($1, $2)`, [
      tokenHash,
      sessionId,
    ]);
  }

  /** The live session a cookie is bound to: not revoked, not expired, its account not disabled. */
  async findLiveBrowserSession(tokenHash: string): Promise<BrowserSessionRow | null> {
    const [row]: BrowserSessionRow[] = await this.dataSource.query(
      `SELECT s.id AS "sessionId", s.user_id AS "userId", s.auth_time AS "authTime", s.amr
         FROM provider_browser_sessions b
         JOIN sessions s ON s.id = b.session_id
         JOIN users u ON u.id = s.user_id
        WHERE b.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
          AND ${maySignInSql('u')}`,
      [tokenHash],
    );
    return row ?? null;
  }

  /** A live session's proof of presence (the browser sign-in a code came from). */
  async findLiveSession(sessionId: string): Promise<{ userId: string; authTime: Date; amr: string[] } | null> {
    const [row]: { userId: string; authTime: Date; amr: string[] }[] = await this.dataSource.query(
      `SELECT user_id AS "userId", auth_time AS "authTime", amr FROM sessions
        WHERE id = $1 AND revoked_at IS NULL AND expires_at > now()`,
      [sessionId],
    );
    return row ?? null;
  }

  async insertCode(code: Omit<AuthorizationCodeRow, 'usedAt' | 'issuedSessionId'>): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO provider_authorization_codes
         (code_hash, client_id, redirect_uri, code_challenge, nonce, scope, resource, session_id, user_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        code.codeHash,
        code.clientId,
        code.redirectUri,
        code.codeChallenge,
        code.nonce,
        code.scope,
        code.resource,
        code.sessionId,
        code.userId,
        code.expiresAt,
      ],
    );
  }

  /**
   * Spends the code: answers its row only to the one request that spent it (the row lock of the
   * UPDATE orders parallel exchanges; the second finds it spent and gets nothing).
   */
  async spendCode(codeHash: string): Promise<AuthorizationCodeRow | null> {
    const [row]: AuthorizationCodeRow[] = await this.dataSource.query(
      `WITH spent AS (
         UPDATE provider_authorization_codes SET used_at = now() WHERE code_hash = $1 AND used_at IS NULL RETURNING *)
       SELECT ${CODE_COLUMNS} FROM spent`,
      [codeHash],
    );
    return row ?? null;
  }

  /**
   * A spent code presented again: marked replayed, answering the session its exchange made (null
   * while that exchange is still making it; it then sees the mark and ends the session itself).
   */
  async markCodeReplayed(
    codeHash: string,
  ): Promise<{ issuedSessionId: string | null; clientId: string; userId: string } | null> {
    const [row]: { issuedSessionId: string | null; clientId: string; userId: string }[] = await this.dataSource.query(
      `WITH replayed AS (
         UPDATE provider_authorization_codes SET replayed_at = now() WHERE code_hash = $1 AND used_at IS NOT NULL
         RETURNING issued_session_id, client_id, user_id)
       SELECT issued_session_id AS "issuedSessionId", client_id AS "clientId", user_id AS "userId" FROM replayed`,
      [codeHash],
    );
    return row ?? null;
  }

  /** Names the session a code's exchange made; answers whether the code was replayed meanwhile. */
  async recordIssuedSession(codeHash: string, sessionId: string): Promise<{ replayed: boolean }> {
    const [row]: { replayed: boolean }[] = await this.dataSource.query(
      `WITH issued AS (
         UPDATE provider_authorization_codes SET issued_session_id = $2 WHERE code_hash = $1 RETURNING replayed_at)
       SELECT replayed_at IS NOT NULL AS replayed FROM issued`,
      [codeHash, sessionId],
    );
    return { replayed: row?.replayed ?? true };
  }

  /** Codes past their end are of no use: dropped after a day (kept a while to answer replays). */
  async deleteExpiredCodes(): Promise<void> {
    await this.dataSource.query(`DELETE FROM provider_authorization_codes WHERE expires_at < now() - interval '1 day'`);
  }

  async findConsent(userId: string, clientId: string): Promise<string | null> {
    const [row]: { scope: string }[] = await this.dataSource.query(
      `SELECT scope FROM provider_consents WHERE user_id = $1 AND client_id = $2`,
      [userId, clientId],
    );
    return row?.scope ?? null;
  }

  async upsertConsent(userId: string, clientId: string, scope: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO provider_consents (user_id, client_id, scope) VALUES ($1, $2, $3)
       ON CONFLICT (user_id, client_id) DO UPDATE SET scope = EXCLUDED.scope, updated_at = now()`,
      [userId, clientId, scope],
    );
  }

  findConsentsOf(userId: string): Promise<{ clientId: string; scope: string; createdAt: Date; updatedAt: Date }[]> {
    return this.dataSource.query(
      `SELECT client_id AS "clientId", scope, created_at AS "createdAt", updated_at AS "updatedAt"
         FROM provider_consents WHERE user_id = $1 ORDER BY client_id`,
      [userId],
    );
  }

  async deleteConsent(manager: EntityManager, userId: string, clientId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `WITH deleted AS (DELETE FROM provider_consents WHERE user_id = $1 AND client_id = $2 RETURNING client_id)
       SELECT client_id FROM deleted`,
      [userId, clientId],
    );
    return rows.length > 0;
  }
}
