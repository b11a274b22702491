/**
 * Permissions and roles as the admin API answers them (`/api/admin/permissions`, `/api/admin/roles`
 * and the organization template's). This file imports nothing, so the admin console reads the
 * same declarations (with each Date as the string JSON carries).
 */
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
