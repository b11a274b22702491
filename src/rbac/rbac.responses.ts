import type { PermissionResponse, RoleResponse } from './role-and-permission-responses.js';
import type { PermissionRow, RoleWithPermissionsRow } from './roles.repository.js';
import { byName } from '../common/by-name.js';

export type { PermissionResponse, RoleResponse };

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
    permissions: role.permissions.map((permission) => ({ id: permission.id, name: permission.name })).sort(byName),
  };
}
