import { api, listPermissions, listRoles, type Permission, type Role } from './api';

/**
 * The instance's roles and permissions, or the organization-role template's: the same screens
 * serve both, each kind naming its API paths, its hash routes and its words.
 */
export interface DefinitionKind {
  rolesPath: string;
  permissionsPath: string;
  rolesRoute: string;
  role: string;
  Role: string;
  Roles: string;
  permission: string;
  Permission: string;
  Permissions: string;
  /** Prefix of the forms' element ids, unique per kind. */
  prefix: string;
  listRoles: () => Promise<Role[]>;
  listPermissions: () => Promise<Permission[]>;
}

export const INSTANCE: DefinitionKind = {
  rolesPath: '/admin/roles',
  permissionsPath: '/admin/permissions',
  rolesRoute: '#/roles',
  role: 'role',
  Role: 'Role',
  Roles: 'Roles',
  permission: 'permission',
  Permission: 'Permission',
  Permissions: 'Permissions',
  prefix: '',
  listRoles,
  listPermissions,
};

/** A whole list, whether the API answers it bare or as `{items, total}`. */
async function whole<T>(path: string): Promise<T[]> {
  const list = await api<T[] | { items: T[] }>('GET', path);
  return Array.isArray(list) ? list : list.items;
}

export const listOrganizationRoles = (): Promise<Role[]> => whole<Role>('/admin/organization-roles');

export const ORGANIZATION: DefinitionKind = {
  rolesPath: '/admin/organization-roles',
  permissionsPath: '/admin/organization-permissions',
  rolesRoute: '#/organization-roles',
  role: 'organization role',
  Role: 'Organization role',
  Roles: 'Organization roles',
  permission: 'organization permission',
  Permission: 'Organization permission',
  Permissions: 'Organization permissions',
  prefix: 'org-',
  listRoles: listOrganizationRoles,
  listPermissions: () => whole<Permission>('/admin/organization-permissions'),
};
