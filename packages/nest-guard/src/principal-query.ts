/**
 * The caller of a live session, with role names and the union of their permissions, in one round
 * trip: `$1` the session id (the token's `sid`), `$2` the user id (`sub`). No row when the session
 * is revoked or past its absolute end, or the user is gone. Shared by this service and the guard
 * library's shared-database mode, so both ask exactly the same question.
 */
export const PRINCIPAL_OF_ACTIVE_SESSION_SQL = `SELECT u.id, u.name, u.email, u.mobile, s.expires_at AS session_expires_at,
        u.email_verified_at IS NOT NULL AS email_verified,
        COALESCE(array_agg(DISTINCT r.name) FILTER (WHERE r.name IS NOT NULL), '{}') AS roles,
        COALESCE(array_agg(DISTINCT p.name) FILTER (WHERE p.name IS NOT NULL), '{}') AS permissions
   FROM sessions s
   JOIN users u ON u.id = s.user_id
   LEFT JOIN user_roles ur ON ur.user_id = u.id
   LEFT JOIN roles r ON r.id = ur.role_id
   LEFT JOIN role_permissions rp ON rp.role_id = r.id
   LEFT JOIN permissions p ON p.id = rp.permission_id
  WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now()
  GROUP BY u.id, s.expires_at`;
