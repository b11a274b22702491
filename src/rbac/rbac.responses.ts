import type { PermissionRow, RoleWithPermissionsRow } from './roles.repository.js';

export interface PermissionResponse {
  id: string;
  name: string;
  display_name: string | null;
  description: string | null;
  group_name: string | null;
  is_system: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface RoleResponse {
  id: string;
  name: string;
  display_name: string | null;
  description: string | null;
  is_system: boolean;
  created_at: Date;
  updated_at: Date;
  permissions: { id: string; name: string }[];
}

export function toPermissionResponse(permission: PermissionRow): PermissionResponse {
  return {
    id: permission.id,
    name: permission.name,
    display_name: permission.displayName,
    description: permission.description,
    group_name: permission.groupName,
    is_system: permission.isSystem,
    created_at: permission.createdAt,
    updated_at: permission.updatedAt,
  };
}

export function toRoleResponse(role: RoleWithPermissionsRow): RoleResponse {
  return {
    id: role.id,
    name: role.name,
    display_name: role.displayName,
    description: role.description,
    is_system: role.isSystem,
    created_at: role.createdAt,
    updated_at: role.updatedAt,
    permissions: role.permissions
      .map((permission) => ({ id: permission.id, name: permission.name }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}
