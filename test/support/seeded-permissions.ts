/**
 * The twenty-three permissions the service seeds (the specification's default data), in its order,
 * written out as the contract does: what the privilege tests grant and expect.
 */
export const EVERY_PERMISSION: readonly string[] = [
  'users.view',
  'users.create',
  'users.edit',
  'users.delete',
  'roles.view',
  'roles.create',
  'roles.edit',
  'roles.delete',
  'contents.view',
  'contents.create',
  'contents.edit',
  'contents.delete',
  'settings.view',
  'settings.edit',
  'audit.view',
  'clients.view',
  'clients.create',
  'clients.edit',
  'clients.delete',
  'organizations.view',
  'organizations.create',
  'organizations.edit',
  'organizations.delete',
];
