import { Permissions, type PermissionName } from '@auth-rbac/nest-guard';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';

export interface PermissionSeed {
  name: string;
  displayName: string;
  groupName: string;
  description: string;
}

export interface RoleSeed {
  name: string;
  displayName: string;
  description: string;
}

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** `users.view` → display name "View Users", group "Users". */
export function describePermission(name: PermissionName | string): PermissionSeed {
  const [resource, action] = name.split('.');
  return {
    name,
    displayName: `${capitalize(action)} ${capitalize(resource)}`,
    groupName: capitalize(resource),
    description: `Allows to ${action} ${resource}.`,
  };
}

/** The specification's system permissions: four per module, and two for settings. */
export const SEEDED_PERMISSIONS: PermissionSeed[] = Object.values(Permissions).map(describePermission);

export const SEEDED_ROLES: RoleSeed[] = [
  { name: SystemRoles.Admin, displayName: 'Administrator', description: 'Full access to every permission.' },
  { name: SystemRoles.User, displayName: 'User', description: 'Authenticated, unprivileged user.' },
];
