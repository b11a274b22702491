/**
 * The library entry another Nest service imports (`import { AuthGuardModule } from
 * 'auth-rbac-service'`): the guard module and the same decorators, AuthUser and permission names
 * this service uses on its own routes. Nothing here loads the service's configuration, database
 * or entities (src/guard-library/library-boundary.spec.ts keeps it that way).
 */
export { AuthGuardModule, AUTH_GUARD_OPTIONS, type AuthGuardModuleAsyncOptions } from './guard-library/auth-guard.module.js';
export type {
  AuthGuardModuleOptions,
  DataSourcePermissionsOptions,
  PermissionsFrom,
  PrincipalRecord,
  QueryPermissionsOptions,
  RemotePermissionsOptions,
  SqlRunner,
} from './guard-library/auth-guard.options.js';
export { LibraryAuthGuard } from './guard-library/library-auth.guard.js';
export { AccessTokenVerifier, extractAccessToken, type VerifiedAccessToken } from './guard-library/access-token.js';
export { PrincipalSource, PRINCIPAL_OF_ACTIVE_SESSION_SQL } from './guard-library/principal-source.js';
export { CurrentUser } from './auth/current-user.decorator.js';
export { Public, IS_PUBLIC_KEY } from './auth/public.decorator.js';
export { AuthUser } from './rbac/auth-user.js';
export { Permissions, SystemRoles, type PermissionName, type SystemRoleName } from './rbac/permission-names.js';
export {
  RequireAnyPermission,
  RequirePermissions,
  REQUIRED_PERMISSIONS_KEY,
  type PermissionRequirement,
} from './rbac/permissions.decorator.js';
