/** Permission names are data; in code they are these constants, so a typo fails to compile. */
export const Permissions = {
  UsersView: 'users.view',
  UsersCreate: 'users.create',
  UsersEdit: 'users.edit',
  UsersDelete: 'users.delete',
  RolesView: 'roles.view',
  RolesCreate: 'roles.create',
  RolesEdit: 'roles.edit',
  RolesDelete: 'roles.delete',
  ContentsView: 'contents.view',
  ContentsCreate: 'contents.create',
  ContentsEdit: 'contents.edit',
  ContentsDelete: 'contents.delete',
  SettingsView: 'settings.view',
  SettingsEdit: 'settings.edit',
  AuditView: 'audit.view',
  ClientsView: 'clients.view',
  ClientsCreate: 'clients.create',
  ClientsEdit: 'clients.edit',
  ClientsDelete: 'clients.delete',
  OrganizationsView: 'organizations.view',
  OrganizationsCreate: 'organizations.create',
  OrganizationsEdit: 'organizations.edit',
  OrganizationsDelete: 'organizations.delete',
} as const;

export type PermissionName = (typeof Permissions)[keyof typeof Permissions];

/**
 * The organization permissions the service seeds: held inside an organization through its
 * organization roles, and checked only under an organization token of that organization.
 */
export const OrganizationPermissions = {
  OrganizationView: 'organization.view',
  OrganizationEdit: 'organization.edit',
  OrganizationDelete: 'organization.delete',
  MembersView: 'members.view',
  MembersInvite: 'members.invite',
  MembersEdit: 'members.edit',
  MembersRemove: 'members.remove',
} as const;

export type OrganizationPermissionName = (typeof OrganizationPermissions)[keyof typeof OrganizationPermissions];

export const SystemRoles = {
  Admin: 'admin',
  User: 'user',
} as const;

/** The seeded organization roles: `owner` holds every organization permission, `member` views. */
export const OrganizationRoles = {
  Owner: 'owner',
  Member: 'member',
} as const;

export type SystemRoleName = (typeof SystemRoles)[keyof typeof SystemRoles];

/**
 * The permission names a service knows, filled in by the module that
 * `npm run cli -- permissions:export --format ts` generates (module augmentation):
 *
 * ```ts
 * declare module '@auth-rbac/nest-guard' {
 *   interface PermissionRegistry extends Record<AppPermission, true> {}
 * }
 * ```
 *
 * Empty (no generated module in the compilation), any string is accepted.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PermissionRegistry {}

/** What `@RequirePermissions`, `@RequireAnyPermission` and `AuthUser.has` accept: the generated union, else any string. */
export type KnownPermission = keyof PermissionRegistry extends never
  ? string
  : Extract<keyof PermissionRegistry, string>;
