export { AccessRepository, ROLE_AND_PERMISSION_NAMES, rolesAndPermissionsOf } from './access.repository.js';
export { AuthzVersions } from './authz-versions.js';
export { PrincipalService } from './principal.service.js';
export { NewAccounts } from './new-accounts.js';
export { isPrivileged } from './privilege-policy.js';
export {
  PrivilegeRefusal,
  assertMayActOn,
  assertMayAssignAdminRole,
  assertMayGrant,
  type PolicyActor,
} from './privilege-refusal.js';
export { notFound, systemProtected, unknownIds } from './rbac-errors.js';
export {
  ClientRoleIdsDto,
  CreatePermissionDto,
  CreateRoleDto,
  UpdatePermissionDto,
  UpdateRoleDto,
} from './rbac.dto.js';
export { toPermissionResponse, toRoleResponse, type PermissionResponse, type RoleResponse } from './rbac.responses.js';
export { missingPermissions } from './privilege-policy.js';
export { RbacModule } from './rbac.module.js';
export { RolesRepository, type PermissionRow, type RoleRow } from './roles.repository.js';
export { FirstStartSeeder } from './seeds/first-start-seeder.js';
export { reportGeneratedPasswords } from './seeds/seed-report.js';
export { SeedService } from './seeds/seed.service.js';
export { UserRolesRepository, type HeldRoleRow } from './user-roles.repository.js';
