/**
 * The model of organizations, written from the contract ("Organizations: roles per customer")
 * and decision 065 without reading the service's code: what the service should answer to each
 * organization write, what the database should hold after it, and the invariants that hold per
 * organization. Pure: no HTTP, no database.
 */

/** A row of the organization-role template: its permissions are organization permissions. */
export interface OrganizationRoleRow {
  id: string;
  name: string;
  isSystem: boolean;
  permissionIds: string[];
}

export interface OrganizationPermissionRow {
  id: string;
  name: string;
}

export interface ModelMembership {
  userId: string;
  roleIds: string[];
}

export interface ModelOrganization {
  id: string;
  label: string;
  slug: string;
  members: ModelMembership[];
}

/** What the organization invariants look at: the organizations with their members, and the template. */
export interface OrganizationSnapshot {
  organizations: { id: string; members: ModelMembership[] }[];
  roles: OrganizationRoleRow[];
  permissions: OrganizationPermissionRow[];
}

export const OWNER = 'owner';

/** Which instance permission lets an administrator do, in any organization, what a member's permission lets them do. */
export const ADMINISTRATOR_PERMISSION: Record<string, string> = {
  'organization.view': 'organizations.view',
  'members.view': 'organizations.view',
  'organization.edit': 'organizations.edit',
  'members.invite': 'organizations.edit',
  'members.edit': 'organizations.edit',
  'members.remove': 'organizations.edit',
  'organization.delete': 'organizations.delete',
};

/** The permission names a person holds in an organization: the union over their roles there. Empty for a non-member. */
export function organizationPermissionIds(snapshot: OrganizationSnapshot, organizationId: string, userId: string) {
  const membership = snapshot.organizations
    .find((row) => row.id === organizationId)
    ?.members.find((member) => member.userId === userId);
  const held = new Set<string>();
  for (const roleId of membership?.roleIds ?? [])
    for (const id of snapshot.roles.find((role) => role.id === roleId)?.permissionIds ?? []) held.add(id);
  return held;
}

export function holdsOwner(snapshot: OrganizationSnapshot, organizationId: string, userId: string): boolean {
  const owner = snapshot.roles.find((role) => role.name === OWNER && role.isSystem)!;
  return !!snapshot.organizations
    .find((row) => row.id === organizationId)
    ?.members.find((member) => member.userId === userId)
    ?.roleIds.includes(owner.id);
}

/** What an accepted organization write was, as far as the invariants care. */
export interface OrganizationFacts {
  actorId: string;
  organizationId: string;
  /** An instance administrator acting through `organizations.*` (not bound by the member's rules). */
  asAdministrator: boolean;
  /** Memberships the write changed or ended (not the actor's own leaving). */
  memberTargets: string[];
  /** The actor left. */
  leaving: boolean;
}

export interface OrganizationViolation {
  invariant: string;
  detail: string;
}

/**
 * The invariants of one accepted write inside one organization, over the organization snapshots
 * before and after it:
 * (O1) no escalation: a permission anyone newly holds there was held there by the acting member;
 * (O2) target ⊆ own: every membership a member changed or ended held only what the member holds
 *      there, and nobody changed their own roles;
 * (O3) only an owner touches an owner (holding owner before, or after);
 * (O4) the organization keeps an owner (unless it was deleted).
 * An instance administrator is bound by (O4) only.
 */
export function organizationStepInvariants(
  before: OrganizationSnapshot,
  after: OrganizationSnapshot,
  facts: OrganizationFacts,
): OrganizationViolation[] {
  const violations: OrganizationViolation[] = [];
  const org = facts.organizationId;
  const was = before.organizations.find((row) => row.id === org);
  const now = after.organizations.find((row) => row.id === org);
  if (!facts.asAdministrator && was && now) {
    const own = organizationPermissionIds(before, org, facts.actorId);
    for (const member of now.members) {
      const had = organizationPermissionIds(before, org, member.userId);
      for (const id of organizationPermissionIds(after, org, member.userId)) {
        if (had.has(id) || own.has(id)) continue;
        violations.push({
          invariant: 'no escalation inside an organization',
          detail: `${member.userId} newly holds ${nameOf(after, id)} in ${org}, which the actor did not hold there`,
        });
      }
    }
    for (const target of facts.memberTargets) {
      if (target === facts.actorId && !facts.leaving)
        violations.push({ invariant: 'nobody changes their own roles', detail: `${target} changed their own roles` });
      const above = [...organizationPermissionIds(before, org, target)].filter((id) => !own.has(id));
      if (above.length)
        violations.push({
          invariant: 'target ⊆ own inside an organization',
          detail: `the actor changed the membership of ${target} holding ${above.map((id) => nameOf(before, id)).join(', ')} in ${org}`,
        });
      const touchesOwner = holdsOwner(before, org, target) || holdsOwner(after, org, target);
      if (touchesOwner && !holdsOwner(before, org, facts.actorId))
        violations.push({
          invariant: 'only an owner touches an owner',
          detail: `a non-owner changed the owner membership of ${target} in ${org}`,
        });
    }
  }
  violations.push(...lastOwnerKept(before, after, org));
  return violations;
}

/** (O4) An organization that had an owner before the write has one after it, unless it is gone. */
export function lastOwnerKept(
  before: OrganizationSnapshot,
  after: OrganizationSnapshot,
  organizationId: string,
): OrganizationViolation[] {
  const was = before.organizations.find((row) => row.id === organizationId);
  const now = after.organizations.find((row) => row.id === organizationId);
  if (!was || !now) return [];
  const hadOwner = was.members.some((member) => holdsOwner(before, organizationId, member.userId));
  const hasOwner = now.members.some((member) => holdsOwner(after, organizationId, member.userId));
  return hadOwner && !hasOwner
    ? [{ invariant: 'the last owner is kept', detail: `${organizationId} has no owner any more` }]
    : [];
}

/**
 * (O5) An organization token carries exactly that organization's permissions of the member, as
 * the database holds them when it is used; a token of a membership that is gone answers nothing.
 */
export function organizationTokenAgrees(
  snapshot: OrganizationSnapshot,
  organizationId: string,
  userId: string,
  where: string,
  permissionNames: string[],
): OrganizationViolation[] {
  const expected = [...organizationPermissionIds(snapshot, organizationId, userId)]
    .map((id) => nameOf(snapshot, id))
    .sort();
  const said = [...new Set(permissionNames)].sort();
  if (expected.join(',') === said.join(',')) return [];
  return [
    {
      invariant: 'an organization token carries exactly the organization permissions',
      detail: `${where} of ${userId} in ${organizationId} says [${said.join(', ')}], the database [${expected.join(', ')}]`,
    },
  ];
}

function nameOf(snapshot: OrganizationSnapshot, id: string): string {
  return snapshot.permissions.find((row) => row.id === id)?.name ?? id;
}
