/**
 * `@auth-rbac/nest-guard`: what a Nest service imports to be guarded by the auth service. Nest,
 * rxjs and reflect-metadata are the importing service's own (peer dependencies); nothing of the
 * auth service comes along. What only the auth service itself needs is in `./internal`.
 */
export { AuthGuardModule, type AuthGuardModuleAsyncOptions } from './auth-guard.module.js';
export type { AuthGuardModuleOptions, ProtectedResourceOptions } from './auth-guard.options.js';
export { AuthGuardHealth, type AuthGuardHealthReport } from './auth-guard.health.js';
export { RequireAnyPermission, RequirePermissions } from './permissions.decorator.js';
export { Public } from './public.decorator.js';
export { CurrentUser } from './current-user.decorator.js';
export { RequireFreshAuth, RequireSecondFactor } from './fresh-auth.decorator.js';
export { AuthUser, type AuthUserFields, type CallerKind } from './auth-user.js';
export {
  OrganizationPermissions,
  Permissions,
  type KnownPermission,
  type OrganizationPermissionName,
  type PermissionName,
  type PermissionRegistry,
} from './permission-names.js';
export { OrganizationParam } from './organization.decorator.js';
