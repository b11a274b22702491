import { SetMetadata } from '@nestjs/common';
import type { KnownPermission } from './permission-names.js';

export const REQUIRED_PERMISSIONS_KEY = 'rbac:requiredPermissions';

export interface PermissionRequirement {
  mode: 'all' | 'any';
  permissions: string[];
}

/** The caller must hold every one of these permissions. */
export const RequirePermissions = (...permissions: KnownPermission[]) =>
  SetMetadata<string, PermissionRequirement>(REQUIRED_PERMISSIONS_KEY, { mode: 'all', permissions });

/** The caller must hold at least one of these permissions. */
export const RequireAnyPermission = (...permissions: KnownPermission[]) =>
  SetMetadata<string, PermissionRequirement>(REQUIRED_PERMISSIONS_KEY, { mode: 'any', permissions });
