import type { AuthUser } from '@auth-rbac/nest-guard';
import { OrganizationPermissions, Permissions } from '@auth-rbac/nest-guard';
import { OrganizationRoles } from '@auth-rbac/nest-guard/internal';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppException } from '../common/app-exception.js';
import { MembershipsRepository } from './memberships.repository.js';

/** What the caller may do in one organization, judged on one request. */
export interface OrganizationActor {
  /** An instance administrator acting through `organizations.*` (audited as such), not as a member. */
  asAdministrator: boolean;
  /** The caller's permissions in the organization (every one for an administrator). */
  permissions: Set<string>;
  /** The caller's organization roles (empty for an administrator who is no member). */
  roles: Set<string>;
}

const EVERY_ORGANIZATION_PERMISSION = Object.values(OrganizationPermissions) as string[];

/** Which instance permission lets an administrator do what an organization permission lets a member do. */
const ADMINISTRATOR_PERMISSION: Record<string, string> = {
  [OrganizationPermissions.OrganizationView]: Permissions.OrganizationsView,
  [OrganizationPermissions.MembersView]: Permissions.OrganizationsView,
  [OrganizationPermissions.OrganizationEdit]: Permissions.OrganizationsEdit,
  [OrganizationPermissions.MembersInvite]: Permissions.OrganizationsEdit,
  [OrganizationPermissions.MembersEdit]: Permissions.OrganizationsEdit,
  [OrganizationPermissions.MembersRemove]: Permissions.OrganizationsEdit,
  [OrganizationPermissions.OrganizationDelete]: Permissions.OrganizationsDelete,
};

export const organizationNotFound = () => new AppException('NOT_FOUND', 'Organization not found.');

/**
 * The one judge of every organization route: a caller who is not a member (nor an instance
 * administrator) hears 404, never 403, so guessed ids tell nothing; a member presenting another
 * organization's token hears 403 `ORGANIZATION_MISMATCH`; a member lacking the permission, 403
 * `FORBIDDEN`. An instance administrator acts with an ordinary token only: under an organization
 * token, only that organization's permissions apply.
 */
@Injectable()
export class OrganizationAccess {
  constructor(private readonly memberships: MembershipsRepository) {}

  async judge(
    caller: AuthUser,
    organizationId: string,
    permission: string | null,
    manager?: EntityManager,
  ): Promise<OrganizationActor> {
    const access =
      caller.kind === 'person' ? await this.memberships.findAccess(organizationId, caller.id, manager) : null;
    if (caller.organizationId !== undefined && caller.organizationId !== organizationId) {
      if (access)
        throw new AppException('ORGANIZATION_MISMATCH', "The token belongs to another organization than the route's.");
      throw organizationNotFound();
    }
    const administrator =
      caller.organizationId === undefined && permission !== null && caller.has(ADMINISTRATOR_PERMISSION[permission]);
    if (administrator)
      return {
        asAdministrator: true,
        permissions: new Set(EVERY_ORGANIZATION_PERMISSION),
        roles: new Set(access?.roles),
      };
    if (!access) throw organizationNotFound();
    if (permission !== null && !access.permissions.includes(permission))
      throw new AppException('FORBIDDEN', `Missing permission: ${permission}.`, [{ permission }]);
    return { asAdministrator: false, permissions: new Set(access.permissions), roles: new Set(access.roles) };
  }
}

/** Whether the actor holds `owner` (only an owner touches an owner; administrators may). */
export function actsAsOwner(actor: OrganizationActor): boolean {
  return actor.asAdministrator || actor.roles.has(OrganizationRoles.Owner);
}
