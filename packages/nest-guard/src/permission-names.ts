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
} as const;

export type PermissionName = (typeof Permissions)[keyof typeof Permissions];

export const SystemRoles = {
  Admin: 'admin',
  User: 'user',
} as const;

export type SystemRoleName = (typeof SystemRoles)[keyof typeof SystemRoles];
