import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { RoleRef } from './memberships.repository.js';

/** A pending invitation as its lists show it (never the token or its hash). */
export interface InvitationRow {
  id: string;
  organizationId: string;
  email: string;
  roles: RoleRef[];
  expiresAt: Date;
  createdAt: Date;
}

/** An invitation with the organization it is to, for the invited person's list. */
export interface ReceivedInvitationRow extends InvitationRow {
  organizationSlug: string;
  organizationName: string;
}

/** What accepting needs: the invitation, locked. */
export interface InvitationToAccept {
  id: string;
  organizationId: string;
  email: string;
  roleIds: string[];
}

const ROLES = `COALESCE((SELECT json_agg(json_build_object('id', r.id, 'name', r.name) ORDER BY r.name)
             FROM organization_roles r WHERE r.id = ANY(i.role_ids)), '[]'::json)`;
const COLUMNS = `i.id, i.organization_id AS "organizationId", i.email, ${ROLES} AS roles,
  i.expires_at AS "expiresAt", i.created_at AS "createdAt"`;
const PENDING = `i.accepted_at IS NULL AND i.expires_at > now()`;

/** The only writer of `organization_invitations`; tokens are kept only as their SHA-256. */
@Injectable()
export class InvitationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    manager: EntityManager,
    invitation: {
      organizationId: string;
      email: string;
      tokenHash: string;
      roleIds: string[];
      invitedBy: string | null;
      expiresAt: Date;
    },
  ): Promise<InvitationRow> {
    const [{ id }]: { id: string }[] = await manager.query(
      `INSERT INTO organization_invitations (organization_id, email, token_hash, role_ids, invited_by, expires_at)
       VALUES ($1, $2, $3, $4::uuid[], $5, $6) RETURNING id`,
      [
        invitation.organizationId,
        invitation.email,
        invitation.tokenHash,
        invitation.roleIds,
        invitation.invitedBy,
        invitation.expiresAt,
      ],
    );
    const [row]: InvitationRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM organization_invitations i WHERE i.id = $1`,
      [id],
    );
    return row;
  }

  pendingOf(organizationId: string): Promise<InvitationRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM organization_invitations i WHERE i.organization_id = $1 AND ${PENDING}
        ORDER BY i.created_at DESC, i.id`,
      [organizationId],
    );
  }

  pendingFor(email: string): Promise<ReceivedInvitationRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS}, o.slug AS "organizationSlug", o.name AS "organizationName"
         FROM organization_invitations i JOIN organizations o ON o.id = i.organization_id
        WHERE i.email = $1 AND ${PENDING} ORDER BY i.created_at DESC, i.id`,
      [email],
    );
  }

  /** Whether a pending invitation of the organization was withdrawn. */
  async withdraw(manager: EntityManager, organizationId: string, id: string): Promise<boolean> {
    const [, affected]: [unknown[], number] = await manager.query(
      `DELETE FROM organization_invitations i WHERE i.organization_id = $1 AND i.id = $2 AND ${PENDING}`,
      [organizationId, id],
    );
    return affected > 0;
  }

  /**
   * The pending invitation of the token's hash, locked until the transaction ends: of two accepts
   * at once, the second waits and then finds it used.
   */
  async lockPending(manager: EntityManager, tokenHash: string): Promise<InvitationToAccept | null> {
    const [row]: InvitationToAccept[] = await manager.query(
      `SELECT i.id, i.organization_id AS "organizationId", i.email, i.role_ids AS "roleIds"
         FROM organization_invitations i WHERE i.token_hash = $1 AND ${PENDING} FOR UPDATE`,
      [tokenHash],
    );
    return row ?? null;
  }

  async markAccepted(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE organization_invitations SET accepted_at = now() WHERE id = $1`, [id]);
  }
}
