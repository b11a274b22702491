/**
 * `@auth-rbac/nest-guard/internal`: the building blocks the auth service itself guards its routes
 * with (its own keys, its own caller source, its error filter) and signs its events with. Not
 * part of the public interface: it may change in any release.
 */
export {
  AuthGuardModule,
  AUTH_GUARD_OPTIONS,
  createVerifier,
  keySourceOf,
  type AuthGuardModuleAsyncOptions,
} from './auth-guard.module.js';
export type {
  AuthGuardModuleOptions,
  CacheOptions,
  PermissionsFrom,
  PrincipalRecord,
  QueryPermissionsOptions,
  RemotePermissionsOptions,
} from './auth-guard.options.js';
export { AuthGuardLifecycle } from './auth-guard.lifecycle.js';
export { LibraryAuthGuard } from './auth.guard.js';
export {
  AccessTokenVerifier,
  bearerToken,
  CLOCK_SKEW_SECONDS,
  ACCESS_TOKEN_COOKIE,
  extractAccessToken,
  hasValidTimes,
  amrOf,
  authTimeOf,
  callerKindOf,
  stepUpClaims,
  tokenDigest,
  type VerifiedAccessToken,
} from './access-token.js';
export {
  PrincipalSource,
  basicAuthorization,
  createPrincipalSource,
  principalFromIntrospection,
} from './principal-source.js';
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
export { IS_PUBLIC_KEY } from './public.decorator.js';
export {
  DEFAULT_REAUTH_MAX_AGE_SECONDS,
  FRESH_AUTH_KEY,
  hasSecondFactor,
  isFresh,
  SECOND_FACTOR_KEY,
  type FreshAuthRequirement,
} from './fresh-auth.decorator.js';
export { OrganizationRoles, SystemRoles, type SystemRoleName } from './permission-names.js';
export { ORGANIZATION_PARAM_KEY } from './organization.decorator.js';
export { REQUIRED_PERMISSIONS_KEY, type PermissionRequirement } from './permissions.decorator.js';
export {
  SECURITY_EVENT_TOKEN_TYPE,
  SECURITY_EVENT_URIS,
  securityEventClaims,
  verifySecurityEvent,
  type SecurityEventName,
  type VerifiedSecurityEvent,
} from './security-event-token.js';
export { EventDrivenPrincipalSource, type RevocationHealth } from './event-driven-principal-source.js';
export { SecurityEventSubscriber, type EventStreamHealth, type EventStreamState } from './security-event-subscriber.js';
export * from './index.js';
