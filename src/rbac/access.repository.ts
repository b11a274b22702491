import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';
import { isPrivileged, PRIVILEGED_PERMISSIONS } from './privilege-policy.js';
import type { SessionRef } from '../common/session-ref.js';
import type { Actor } from '../common/actor.js';

/**
 * What an account may do: its roles and the union of their permissions, for the principal of a
 * request and for the privilege policy's comparisons. Reads users, sessions, user_roles, roles and
 * role_permissions; writes nothing.
 */
export interface EffectiveAccess {
  roles: string[];
  permissions: string[];
}

export interface PrincipalRow {
  id: string;
  name: string;
  email: string;
  mobile: string | null;
  emailVerified: boolean;
  roles: string[];
  permissions: string[];
  sessionExpiresAt: Date;
}

/**
 * The names a holder's roles reach, as the two text arrays of an `EffectiveAccess` row: `roles` and
 * `permissions`, each without repeats, and empty rather than null when the LEFT JOINs found none.
 * Reads the role and permission tables aliased `r` and `p` (the instance's, or an organization's).
 */
export const ROLE_AND_PERMISSION_NAMES = `COALESCE(array_agg(DISTINCT r.name) FILTER (WHERE r.name IS NOT NULL), '{}') AS roles,
        COALESCE(array_agg(DISTINCT p.name) FILTER (WHERE p.name IS NOT NULL), '{}') AS permissions`;

/**
 * The instance roles whose ids `roleIdColumn` holds, as `r`, and their permissions, as `p`: LEFT
 * JOINs, so a holder of no role (or of a role with no permission) keeps its row.
 */
export function rolesAndPermissionsOf(roleIdColumn: string): string {
  return `LEFT JOIN roles r ON r.id = ${roleIdColumn}
   LEFT JOIN role_permissions rp ON rp.role_id = r.id
   LEFT JOIN permissions p ON p.id = rp.permission_id`;
}

/**
 * The caller of a live session, with role names and the union of their permissions, in one round
 * trip: `$1` the session id (the token's `sid`), `$2` the user id (`sub`). No row when the session
 * is revoked or past its absolute end, or the user is gone.
 */
const PRINCIPAL_OF_ACTIVE_SESSION_SQL = `SELECT u.id, u.name, u.email, u.mobile, s.expires_at AS "sessionExpiresAt",
        u.email_verified_at IS NOT NULL AS "emailVerified", ${ROLE_AND_PERMISSION_NAMES}
   FROM sessions s
   JOIN users u ON u.id = s.user_id
   LEFT JOIN user_roles ur ON ur.user_id = u.id
   ${rolesAndPermissionsOf('ur.role_id')}
  WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now()
  GROUP BY u.id, s.expires_at`;

@Injectable()
export class AccessRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Privileged accounts (see privilege-policy.ts) with no mobile: the second factor cannot reach them. */
  async countPrivilegedWithoutMobile(): Promise<number> {
    const [row]: { count: number }[] = await this.dataSource.query(
      `SELECT count(DISTINCT u.id)::int AS count
         FROM users u
         JOIN user_roles ur ON ur.user_id = u.id
         JOIN roles r ON r.id = ur.role_id
         LEFT JOIN role_permissions rp ON rp.role_id = r.id
         LEFT JOIN permissions p ON p.id = rp.permission_id
        WHERE u.mobile IS NULL AND (r.name = $1 OR p.name = ANY($2))`,
      [SystemRoles.Admin, [...PRIVILEGED_PERMISSIONS]],
    );
    return row?.count ?? 0;
  }

  /**
   * The caller of a live session, with role names and aggregated permissions, in one round
   * trip; null when the session is revoked or expired, or the user is gone.
   */
  async findPrincipalOfActiveSession(session: SessionRef): Promise<PrincipalRow | null> {
    const rows: PrincipalRow[] = await this.dataSource.query(PRINCIPAL_OF_ACTIVE_SESSION_SQL, [
      session.sessionId,
      session.userId,
    ]);
    return rows[0] ?? null;
  }

  /**
   * The user's role names and effective permissions; null when there is no such user. Takes the
   * caller's transaction manager when there is one (the embedded database runs one at a time).
   */
  async findEffectiveAccess(
    userId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<EffectiveAccess | null> {
    const [row]: EffectiveAccess[] = await manager.query(
      `SELECT ${ROLE_AND_PERMISSION_NAMES}
         FROM users u
         LEFT JOIN user_roles ur ON ur.user_id = u.id
         ${rolesAndPermissionsOf('ur.role_id')}
        WHERE u.id = $1
        GROUP BY u.id`,
      [userId],
    );
    return row ?? null;
  }

  /**
   * What an actor may do now, for the privilege policy: a person's permissions read in the
   * caller's transaction (after its locks, so a grant made a moment ago counts); a service
   * client's as its token was granted them on this request (a client is no users row).
   */
  async permissionsOfActor(
    actor: Actor & { permissions: Iterable<string> },
    manager: EntityManager = this.dataSource.manager,
  ): Promise<string[]> {
    if (actor.kind === 'service') return [...actor.permissions];
    return (await this.findEffectiveAccess(actor.id, manager))?.permissions ?? [];
  }

  /** The one question behind every administrator rule (second factor, no code-only sign-in). */
  async isPrivilegedAccount(userId: string): Promise<boolean> {
    const access = await this.findEffectiveAccess(userId);
    return access !== null && isPrivileged(access.roles, access.permissions);
  }
}
