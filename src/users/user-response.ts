import type { AdminUserRow } from './admin-users.repository.js';

/** A user as the admin API answers it (`/api/users`): never a password or hash. */
export interface UserResponse {
  id: string;
  name: string;
  email: string;
  mobile: string | null;
  email_verified: boolean;
  /** Disabled now: set, and not past its end. */
  disabled: boolean;
  disabled_at: Date | null;
  disabled_until: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
  roles: { id: string; name: string }[];
}

export function toUserResponse(row: AdminUserRow): UserResponse {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    mobile: row.mobile,
    email_verified: row.emailVerified,
    disabled: row.disabled,
    disabled_at: row.disabledAt,
    disabled_until: row.disabledUntil,
    disabled_reason: row.disabledReason,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    roles: row.roles,
  };
}
