import type { AuthUser } from '@auth-rbac/nest-guard';
import { OrganizationPermissions } from '@auth-rbac/nest-guard';
import { OrganizationRoles } from '@auth-rbac/nest-guard/internal';
import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AuditLog } from '../audit/index.js';
import { AppException } from '../common/app-exception.js';
import { sha256Hex } from '../common/token-hash.js';
import { AppConfig } from '../config/app-config.js';
import { UsersRepository } from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { MailService } from '../infra/messaging/mail.service.js';
import { assertMayGrant } from '../rbac/index.js';
import { InvitationsRepository, type InvitationRow } from './invitations.repository.js';
import { MembershipsRepository } from './memberships.repository.js';
import { MembersService } from './members.service.js';
import { actsAsOwner, OrganizationAccess, organizationNotFound } from './organization-access.js';
import { OrganizationChanges } from './organization-changes.js';
import { OrganizationRolesRepository } from './organization-roles.repository.js';
import { OrganizationsRepository } from './organizations.repository.js';
import { byName } from '../common/by-name.js';

export interface InvitationResponse {
  id: string;
  organization_id: string;
  email: string;
  roles: { id: string; name: string }[];
  expires_at: Date;
  created_at: Date;
}

const toInvitationResponse = (row: InvitationRow): InvitationResponse => ({
  id: row.id,
  organization_id: row.organizationId,
  email: row.email,
  roles: row.roles,
  expires_at: row.expiresAt,
  created_at: row.createdAt,
});

const invalidInvitation = () =>
  new AppException('CONFIRMATION_TOKEN_INVALID', 'The invitation is unknown, expired or already used.');

/**
 * Invitations: mailed as a link `${APP_URL}/accept-invitation?token=…`, kept only as the token's
 * SHA-256, single use, `INVITATION_TTL` seconds. The inviter gives only roles whose permissions
 * they hold in the organization (and `owner` only as an owner). The answer never says whether the
 * address has an account. Accepted only by the person whose verified email is the invitation's.
 */
@Injectable()
export class InvitationsService {
  constructor(
    private readonly invitations: InvitationsRepository,
    private readonly organizations: OrganizationsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly roles: OrganizationRolesRepository,
    private readonly members: MembersService,
    private readonly users: UsersRepository,
    private readonly access: OrganizationAccess,
    private readonly changes: OrganizationChanges,
    private readonly transactions: Transactions,
    private readonly mail: MailService,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  async invite(
    caller: AuthUser,
    organizationId: string,
    email: string,
    roleIds: string[],
  ): Promise<InvitationResponse> {
    const token = randomBytes(32).toString('base64url');
    const invitation = await this.transactions.run(async (manager) => {
      const organization = await this.organizations.lock(manager, organizationId);
      if (!organization) throw organizationNotFound();
      const actor = await this.access.judge(caller, organizationId, OrganizationPermissions.MembersInvite, manager);
      const given = await this.members.organizationRoles(manager, roleIds);
      if (!actor.asAdministrator) {
        const policyActor = { id: caller.id, kind: caller.kind, permissions: actor.permissions };
        assertMayGrant(
          policyActor,
          { type: 'invitation', id: organizationId },
          await this.roles.permissionNamesOfRoles(manager, roleIds),
          'organization.invite',
        );
        if (given.some((role) => role.name === OrganizationRoles.Owner) && !actsAsOwner(actor))
          throw new AppException('FORBIDDEN', 'Only an owner can change an owner, or make one.');
      }
      const row = await this.invitations.insert(manager, {
        organizationId,
        email,
        tokenHash: sha256Hex(token),
        roleIds,
        invitedBy: caller.kind === 'person' ? caller.id : null,
        expiresAt: new Date(Date.now() + this.config.organizations.invitationTtl * 1000),
      });
      const link = `${this.config.http.appUrl}/accept-invitation?token=${token}`;
      // Fixed text and the link only: never a name someone chose.
      await this.mail.queue(
        {
          to: email,
          subject: 'You are invited to an organization',
          text: `You have been invited to join an organization.\n\nSign in and accept the invitation:\n${link}\n`,
        },
        { kind: 'invitation', userId: null },
        manager,
      );
      return row;
    });
    this.mail.dispatch();
    await this.audit.record({
      type: 'organization.invite',
      actorId: caller.id,
      actorKind: caller.kind,
      targetType: 'organization',
      targetId: organizationId,
      details: { invitation_id: invitation.id, roles: invitation.roles.map((role) => role.name).sort() },
    });
    return toInvitationResponse(invitation);
  }

  async pending(caller: AuthUser, organizationId: string): Promise<{ items: InvitationResponse[]; total: number }> {
    await this.access.judge(caller, organizationId, OrganizationPermissions.MembersInvite);
    const items = (await this.invitations.pendingOf(organizationId)).map(toInvitationResponse);
    return { items, total: items.length };
  }

  async withdraw(caller: AuthUser, organizationId: string, invitationId: string): Promise<Record<string, never>> {
    await this.access.judge(caller, organizationId, OrganizationPermissions.MembersInvite);
    const withdrawn = await this.transactions.run((manager) =>
      this.invitations.withdraw(manager, organizationId, invitationId),
    );
    if (!withdrawn) throw new AppException('NOT_FOUND', 'Invitation not found.');
    await this.audit.record({
      type: 'organization.invitation_withdraw',
      actorId: caller.id,
      actorKind: caller.kind,
      targetType: 'organization',
      targetId: organizationId,
      details: { invitation_id: invitationId },
    });
    return {};
  }

  /** The pending invitations to the caller's email, once it is verified (none before). */
  async received(caller: AuthUser) {
    const profile = caller.kind === 'person' ? await this.users.findCallerProfile(caller.id) : null;
    if (!profile?.emailVerified) return { items: [], total: 0 };
    const items = (await this.invitations.pendingFor(profile.email)).map((row) => ({
      ...toInvitationResponse(row),
      organization: { id: row.organizationId, slug: row.organizationSlug, name: row.organizationName },
    }));
    return { items, total: items.length };
  }

  async accept(caller: AuthUser, token: string) {
    if (caller.kind !== 'person') throw invalidInvitation();
    const joined = await this.transactions.run(async (manager) => {
      const invitation = await this.invitations.lockPending(manager, sha256Hex(token));
      if (!invitation) throw invalidInvitation();
      const profile = await this.users.findCallerProfile(caller.id, manager);
      if (!profile || profile.email !== invitation.email)
        throw new AppException('FORBIDDEN', 'This invitation was sent to another address.');
      if (!profile.emailVerified)
        throw new AppException('EMAIL_NOT_VERIFIED', 'Verify your email address to accept the invitation.');
      if (!(await this.organizations.lock(manager, invitation.organizationId))) throw invalidInvitation();
      if (await this.memberships.isMember(manager, invitation.organizationId, caller.id))
        throw new AppException('CONFLICT', 'You are already a member of this organization.');
      // Roles deleted from the template since the invitation are left out.
      const roles = await this.roles.findRoles(manager, invitation.roleIds);
      await this.memberships.insert(
        manager,
        invitation.organizationId,
        caller.id,
        roles.map((role) => role.id),
      );
      await this.invitations.markAccepted(manager, invitation.id);
      await this.changes.announce(manager, [{ organizationId: invitation.organizationId, userId: caller.id }]);
      return { organizationId: invitation.organizationId, invitationId: invitation.id, roles };
    });
    await this.changes.published([{ organizationId: joined.organizationId, userId: caller.id }]);
    await this.audit.record({
      type: 'organization.invitation_accept',
      actorId: caller.id,
      targetType: 'organization',
      targetId: joined.organizationId,
      details: { invitation_id: joined.invitationId, roles: joined.roles.map((role) => role.name).sort() },
    });
    const organization = await this.organizations.findById(joined.organizationId);
    return {
      organization: organization && { id: organization.id, slug: organization.slug, name: organization.name },
      roles: joined.roles.map(({ id, name }) => ({ id, name })).sort(byName),
    };
  }
}
