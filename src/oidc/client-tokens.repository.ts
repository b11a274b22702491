import { revocationEvents } from '../events/index.js';
import { ROLE_AND_PERMISSION_NAMES, rolesAndPermissionsOf } from '../rbac/index.js';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * A row of `client_tokens`, the one shape the table's statements answer in: every column aliased
 * to its camelCase name (`client_id AS "clientId"`).
 */
export interface ClientTokenRow {
  /** The token's `sid`. */
  id: string;
  clientId: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

/** What a live token may do: the names of its client's roles and of their permissions. */
export interface ClientPrincipalRow {
  roles: string[];
  permissions: string[];
}

/**
 * The service access tokens issued by the client-credentials grant (`client_tokens`): one row per
 * token, whose id is the token's `sid`, so that revoking it ends it everywhere at once.
 */
@Injectable()
export class ClientTokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(clientId: string, expiresAt: Date): Promise<string> {
    const [row]: Pick<ClientTokenRow, 'id'>[] = await this.dataSource.query(
      `INSERT INTO client_tokens (client_id, expires_at) VALUES ($1, $2) RETURNING id`,
      [clientId, expiresAt],
    );
    return row.id;
  }

  /** Removes the rows expired for a day: they can verify nothing. */
  async deleteLongExpired(): Promise<void> {
    await this.dataSource.query(`DELETE FROM client_tokens WHERE expires_at < now() - interval '1 day'`);
  }

  /**
   * The roles and permissions of a live token of the client (not revoked, not expired), read with
   * its client's roles in one statement; null when the token is not live.
   */
  async findPrincipalOfActiveToken(token: { tokenId: string; clientId: string }): Promise<ClientPrincipalRow | null> {
    const rows: ClientPrincipalRow[] = await this.dataSource.query(
      `SELECT ${ROLE_AND_PERMISSION_NAMES}
         FROM client_tokens t
         LEFT JOIN client_roles cr ON cr.client_id = t.client_id
         ${rolesAndPermissionsOf('cr.role_id')}
        WHERE t.id = $1 AND t.client_id = $2 AND t.revoked_at IS NULL AND t.expires_at > now()
        GROUP BY t.id`,
      [token.tokenId, token.clientId],
    );
    return rows[0] ?? null;
  }

  /** Ends every live token of a client (its deletion), announcing each as a revocation does. */
  async revokeAllOfClient(manager: EntityManager, clientId: string): Promise<void> {
    await manager.query(
      `WITH revoked AS (
         UPDATE client_tokens SET revoked_at = now()
          WHERE client_id = $1 AND revoked_at IS NULL AND expires_at > now()
         RETURNING id, client_id
       ), announced AS (${revocationEvents('revoked', 'session-revoked', 'client_id')})
       SELECT count(*)::int AS count FROM revoked`,
      [clientId],
    );
  }

  /**
   * Ends a token; true when it was live. Its `session-revoked` event (`sid` the token's row, `sub`
   * the client) is written in the same statement, so services following the event stream drop it.
   */
  async revoke(tokenId: string): Promise<boolean> {
    const rows: Pick<ClientTokenRow, 'id'>[] = await this.dataSource.query(
      `WITH revoked AS (
         UPDATE client_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL
         RETURNING id, client_id
       ), announced AS (${revocationEvents('revoked', 'session-revoked', 'client_id')})
       SELECT id FROM revoked`,
      [tokenId],
    );
    return rows.length > 0;
  }
}
