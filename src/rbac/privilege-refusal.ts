import { Permissions, type CallerKind } from '@auth-rbac/nest-guard';
import type { Actor } from '../common/actor.js';
import { AppException } from '../common/app-exception.js';
import { missingPermissions, removedFromAdminRole } from './privilege-policy.js';

/** Who asks: the caller's id, kind and effective permissions (an `AuthUser` fits). */
export interface PolicyActor extends Actor {
  permissions: Iterable<string>;
}

export interface PolicyTarget {
  type: 'user' | 'role' | 'permission' | 'client' | 'membership' | 'invitation';
  id: string;
}

export type PolicyRule = 'target-subset' | 'grant-subset' | 'admin-role-assignment' | 'admin-role-complete';

/** What the audit trail keeps of a refusal: plain facts, permission names only. */
export interface RefusalFacts {
  actorId: string;
  actorKind: CallerKind;
  target: PolicyTarget;
  action: string;
  rule: PolicyRule;
  missing: string[];
}

/**
 * A refusal by the privilege policy. It travels as an ordinary 403 and carries the facts the
 * audit trail records (the interceptor that writes them also knows the client address).
 */
export class PrivilegeRefusal extends AppException {
  constructor(
    code: 'FORBIDDEN' | 'SYSTEM_PROTECTED',
    message: string,
    readonly facts: RefusalFacts,
  ) {
    super(
      code,
      message,
      facts.missing.map((permission) => ({ permission })),
    );
  }
}

const NOUN: Record<PolicyTarget['type'], string> = {
  user: 'a user',
  role: 'a role',
  permission: 'a permission',
  client: 'a service client',
  membership: 'a member',
  invitation: 'an invitation',
};

/** "target ⊆ own": refuses acting on a user, role or permission that holds more than the actor. */
export function assertMayActOn(
  actor: PolicyActor,
  target: PolicyTarget,
  targetPermissions: Iterable<string>,
  action: string,
): void {
  const missing = missingPermissions(actor.permissions, targetPermissions);
  if (missing.length === 0) return;
  const message =
    target.type === 'permission'
      ? `You cannot change the permission ${missing[0]}, which you do not hold.`
      : `You cannot change ${NOUN[target.type]} holding ${missing[0]}, a permission you do not hold.`;
  throw new PrivilegeRefusal('FORBIDDEN', message, {
    actorId: actor.id,
    actorKind: actor.kind,
    target,
    action,
    rule: 'target-subset',
    missing,
  });
}

/** "grant ⊆ own": refuses granting (to a role, or to a user through a role) what the actor lacks. */
export function assertMayGrant(
  actor: PolicyActor,
  target: PolicyTarget,
  granted: Iterable<string>,
  action: string,
): void {
  const missing = missingPermissions(actor.permissions, granted);
  if (missing.length === 0) return;
  throw new PrivilegeRefusal('FORBIDDEN', `You cannot grant ${missing[0]}, a permission you do not hold.`, {
    actorId: actor.id,
    actorKind: actor.kind,
    target,
    action,
    rule: 'grant-subset',
    missing,
  });
}

/**
 * The specification's rule: giving, keeping through a replacement, or taking away the admin role
 * needs `roles.edit`. It keeps the specification's message.
 */
export function assertMayAssignAdminRole(actor: PolicyActor, target: PolicyTarget, action: string): void {
  if (new Set(actor.permissions).has(Permissions.RolesEdit)) return;
  throw new PrivilegeRefusal('FORBIDDEN', 'You have no permission to assign the admin role.', {
    actorId: actor.id,
    actorKind: actor.kind,
    target,
    action,
    rule: 'admin-role-assignment',
    missing: [Permissions.RolesEdit],
  });
}

/** "The admin role keeps every permission": refuses an update that would take one away. */
export function assertAdminRoleKeepsEveryPermission(
  actor: PolicyActor,
  role: { id: string; name: string },
  current: Iterable<string>,
  next: Iterable<string>,
): void {
  const removed = removedFromAdminRole(role.name, current, next);
  if (removed.length === 0) return;
  throw new PrivilegeRefusal(
    'SYSTEM_PROTECTED',
    `The admin role keeps every permission; ${removed[0]} cannot be removed from it.`,
    {
      actorId: actor.id,
      actorKind: actor.kind,
      target: { type: 'role', id: role.id },
      action: 'role.update',
      rule: 'admin-role-complete',
      missing: removed,
    },
  );
}
