/**
 * `@auth-rbac/nest-guard`: what a Nest service imports to be guarded by the auth service, and
 * what the auth service guards its own routes with. Nest, rxjs and reflect-metadata are the
 * importing service's own (peer dependencies); nothing of the auth service comes along.
 */
export {
  AuthGuardModule,
  AUTH_GUARD_OPTIONS,
  createVerifier,
  type AuthGuardModuleAsyncOptions,
} from './auth-guard.module.js';
export type {
  AuthGuardModuleOptions,
  CacheOptions,
  DataSourcePermissionsOptions,
  PermissionsFrom,
  PrincipalRecord,
  QueryPermissionsOptions,
  RemotePermissionsOptions,
  SqlRunner,
} from './auth-guard.options.js';
export { LibraryAuthGuard } from './auth.guard.js';
export {
  AccessTokenVerifier,
  bearerToken,
  CLOCK_SKEW_SECONDS,
  ACCESS_TOKEN_COOKIE,
  extractAccessToken,
  hasValidTimes,
  type VerifiedAccessToken,
} from './access-token.js';
export { PrincipalSource, createPrincipalSource, principalFromIntrospection } from './principal-source.js';
export { PRINCIPAL_OF_ACTIVE_SESSION_SQL } from './principal-query.js';
export {
  algorithmOfKey,
  joseKey,
  keyThumbprint,
  publicVerificationKey,
  secretVerificationKey,
  StaticKeySource,
  TOKEN_ALGORITHMS,
  type KeySource,
  type TokenAlgorithm,
  type VerificationKey,
} from './verification-keys.js';
export { guardErrorBody, type GuardErrorBody } from './library-errors.js';
export { assertPermissions } from './permission-check.js';
export { CurrentUser } from './current-user.decorator.js';
export { Public, IS_PUBLIC_KEY } from './public.decorator.js';
export {
  DEFAULT_REAUTH_MAX_AGE_SECONDS,
  FRESH_AUTH_KEY,
  hasSecondFactor,
  isFresh,
  RequireFreshAuth,
  RequireSecondFactor,
  SECOND_FACTOR_KEY,
  type FreshAuthRequirement,
} from './fresh-auth.decorator.js';
export { AuthUser } from './auth-user.js';
export { Permissions, SystemRoles, type PermissionName, type SystemRoleName } from './permission-names.js';
export {
  RequireAnyPermission,
  RequirePermissions,
  REQUIRED_PERMISSIONS_KEY,
  type PermissionRequirement,
} from './permissions.decorator.js';
