/**
 * The real side of the model-based test: a small world written into the database with SQL (cheap
 * enough to make anew for every history), snapshots read back with SQL, and the actions sent
 * through HTTP to the running service.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request, { type Response } from 'supertest';
import type { DataSource } from 'typeorm';
import type { PermissionRow, RoleRow, Snapshot, UserRow } from './invariants.js';
import { NEW_USER_PASSWORD, type HttpCall, type ModelState, type ModelUser } from './model.js';
import {
  OWNER,
  type ModelMembership,
  type ModelOrganization,
  type OrganizationPermissionRow,
  type OrganizationRoleRow,
  type OrganizationSnapshot,
} from './organization-model.js';

/** A world to build: the `user` role's permissions, custom roles, and accounts with their roles. */
export interface WorldSpec {
  /** Indexes into the system permissions. */
  userRolePermissions: number[];
  /** Each custom role's permissions, as indexes into the system permissions. */
  customRoles: number[][];
  /** Roles as indexes into [admin, user, ...custom roles]; the first account holds admin and is enabled. */
  users: { roles: number[]; disabled: boolean }[];
  /** Custom organization roles of the template, as indexes into the system organization permissions. */
  organizationRoles?: number[][];
  /**
   * Organizations: each member an index into the accounts and roles as indexes into [owner,
   * member, ...custom organization roles]; the first member holds owner.
   */
  organizations?: { members: { user: number; roles: number[] }[] }[];
}

export interface Real {
  app: NestFastifyApplication;
  db: DataSource;
  tokens: Map<string, string>;
  /** The world as built, for "system rows keep their names". */
  start: Snapshot;
  /** The database as the last step left it (a step reads it again only after it acts). */
  last?: Snapshot;
  /** The HTTP calls of this history, as printed on a failure. */
  log: string[];
  /** Labels of ids, for printing. */
  labels: Map<string, string>;
  serial: { next: number };
  /** Organization tokens, by `${userId} ${organizationId}`. */
  organizationTokens?: Map<string, string>;
  /** Where invitation mails arrive (the model's test app has an SMTP sink). */
  mails?: { mailsTo(address: string): { text: string }[] };
  /** Invitation mails seen per address, to wait for the next one. */
  mailsSeen?: Map<string, number>;
  /** Single steps run, by `${kind} ${status}`. */
  tally?: Map<string, number>;
  /** The organizations as the last step left them. */
  lastOrganizations?: OrganizationSnapshot;
}

/** Values every history shares: the password hash of NEW_USER_PASSWORD and the system rows' ids. */
export interface Fixed {
  passwordHash: string;
  adminRoleId: string;
  userRoleId: string;
  systemPermissions: PermissionRow[];
  /** The seeded organization template: owner, member, and the system organization permissions. */
  ownerRoleId: string;
  memberRoleId: string;
  memberRolePermissionIds: string[];
  organizationPermissions: OrganizationPermissionRow[];
}

export async function readFixed(app: NestFastifyApplication, db: DataSource): Promise<Fixed> {
  // One account made through the API gives the hash every world's accounts share.
  const email = `model-hash-${Date.now()}@example.com`;
  const res = await request(app.getHttpServer())
    .post('/api/auth/register')
    .send({ name: 'Hash', email, password: NEW_USER_PASSWORD, password_confirmation: NEW_USER_PASSWORD });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  const [{ password_hash: passwordHash }] = await db.query(`SELECT password_hash FROM users WHERE email = $1`, [email]);
  const roles: { id: string; name: string }[] = await db.query(`SELECT id, name FROM roles WHERE is_system`);
  const systemPermissions: { id: string; name: string }[] = await db.query(
    `SELECT id, name FROM permissions WHERE is_system ORDER BY name`,
  );
  const organizationRoles: { id: string; name: string }[] = await db.query(
    `SELECT id, name FROM organization_roles WHERE is_system`,
  );
  const memberRoleId = organizationRoles.find((role) => role.name === 'member')!.id;
  const memberPermissions: { permission_id: string }[] = await db.query(
    `SELECT permission_id FROM organization_role_permissions WHERE role_id = $1`,
    [memberRoleId],
  );
  const organizationPermissions: OrganizationPermissionRow[] = await db.query(
    `SELECT id, name FROM organization_permissions WHERE is_system ORDER BY name`,
  );
  return {
    ownerRoleId: organizationRoles.find((role) => role.name === OWNER)!.id,
    memberRoleId,
    memberRolePermissionIds: memberPermissions.map((row) => row.permission_id),
    organizationPermissions,
    passwordHash,
    adminRoleId: roles.find((role) => role.name === 'admin')!.id,
    userRoleId: roles.find((role) => role.name === 'user')!.id,
    systemPermissions: systemPermissions.map((row) => ({ ...row, isSystem: true })),
  };
}

/**
 * Empties what any earlier history made (accounts with their sessions, custom roles and
 * permissions), puts the system roles back as seeded, writes the world, and signs its enabled
 * accounts in through the API. Returns the model of that world.
 */
export async function buildWorld(real: Real, fixed: Fixed, spec: WorldSpec, history: number): Promise<ModelState> {
  const { db } = real;
  const all = fixed.systemPermissions;
  await db.transaction(async (manager) => {
    await manager.query(`DELETE FROM organizations`);
    await manager.query(`DELETE FROM users`);
    await manager.query(`DELETE FROM organization_roles WHERE NOT is_system`);
    await manager.query(`DELETE FROM organization_permissions WHERE NOT is_system`);
    await manager.query(`DELETE FROM organization_role_permissions WHERE role_id = $1`, [fixed.memberRoleId]);
    await manager.query(
      `INSERT INTO organization_role_permissions (role_id, permission_id) SELECT $1, unnest($2::uuid[])`,
      [fixed.memberRoleId, fixed.memberRolePermissionIds],
    );
    await manager.query(
      `INSERT INTO organization_role_permissions (role_id, permission_id)
       SELECT $1, id FROM organization_permissions ON CONFLICT DO NOTHING`,
      [fixed.ownerRoleId],
    );
    await manager.query(`DELETE FROM roles WHERE NOT is_system`);
    await manager.query(`DELETE FROM permissions WHERE NOT is_system`);
    await manager.query(`DELETE FROM role_permissions WHERE role_id = $1`, [fixed.userRoleId]);
    await manager.query(
      `INSERT INTO role_permissions (role_id, permission_id) SELECT $1, id FROM permissions ON CONFLICT DO NOTHING`,
      [fixed.adminRoleId],
    );
    await manager.query(`INSERT INTO role_permissions (role_id, permission_id) SELECT $1, unnest($2::uuid[])`, [
      fixed.userRoleId,
      unique(spec.userRolePermissions.map((index) => all[index % all.length].id)),
    ]);
  });
  const roles: RoleRow[] = [
    { id: fixed.adminRoleId, name: 'admin', isSystem: true, permissionIds: all.map((row) => row.id) },
    {
      id: fixed.userRoleId,
      name: 'user',
      isSystem: true,
      permissionIds: unique(spec.userRolePermissions.map((index) => all[index % all.length].id)),
    },
  ];
  for (const [index, permissions] of spec.customRoles.entries()) {
    const name = `role-${String.fromCharCode(97 + index)}`;
    const permissionIds = unique(permissions.map((at) => all[at % all.length].id));
    const [{ id }] = await db.query(`INSERT INTO roles (name) VALUES ($1) RETURNING id`, [name]);
    await db.query(`INSERT INTO role_permissions (role_id, permission_id) SELECT $1, unnest($2::uuid[])`, [
      id,
      permissionIds,
    ]);
    roles.push({ id, name, isSystem: false, permissionIds });
  }
  const users: ModelUser[] = [];
  for (const [index, user] of spec.users.entries()) {
    const email = `model-${history}-u${index}-${Date.now().toString(36)}@example.com`;
    const roleIds = unique((index === 0 ? [0, ...user.roles] : user.roles).map((at) => roles[at % roles.length].id));
    const disabled = index !== 0 && user.disabled;
    const [{ id }] = await db.query(
      `INSERT INTO users (name, email, password_hash, email_verified_at, disabled_at)
       VALUES ($1, $2, $3, now(), CASE WHEN $4 THEN now() END) RETURNING id`,
      [`Model User ${index}`, email, fixed.passwordHash, disabled],
    );
    await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, unnest($2::uuid[])`, [id, roleIds]);
    users.push({ id, label: `u${index}`, email, enabled: !disabled, roleIds, session: false, verified: true });
  }
  const { organizationRoles, organizations } = await buildOrganizations(real, fixed, spec, users, history);
  real.tokens.clear();
  await Promise.all(
    users
      .filter((user) => user.enabled)
      .map(async (user) => {
        const res = await send(real, {
          method: 'POST',
          path: '/api/auth/login',
          actor: null,
          body: { email: user.email, password: NEW_USER_PASSWORD },
        });
        if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
        real.tokens.set(user.id, res.body.data.access_token);
        user.session = true;
      }),
  );
  const state: ModelState = {
    permissions: all.map((row) => ({ ...row })),
    roles,
    users,
    organizations,
    organizationRoles,
    organizationPermissions: fixed.organizationPermissions.map((row) => ({ ...row })),
    invitations: [],
    organizationTokens: [],
  };
  real.organizationTokens = new Map();
  real.lastOrganizations = undefined;
  real.labels = new Map();
  relabel(real, state);
  real.start = toSnapshot(state);
  real.last = undefined;
  return state;
}

/** The template's custom roles and the organizations of the world, written with SQL. */
async function buildOrganizations(
  real: Real,
  fixed: Fixed,
  spec: WorldSpec,
  users: ModelUser[],
  history: number,
): Promise<{ organizationRoles: OrganizationRoleRow[]; organizations: ModelOrganization[] }> {
  const { db } = real;
  const all = fixed.organizationPermissions;
  const organizationRoles: OrganizationRoleRow[] = [
    { id: fixed.ownerRoleId, name: OWNER, isSystem: true, permissionIds: all.map((row) => row.id) },
    { id: fixed.memberRoleId, name: 'member', isSystem: true, permissionIds: [...fixed.memberRolePermissionIds] },
  ];
  for (const [index, permissions] of (spec.organizationRoles ?? []).entries()) {
    const name = `org-role-${String.fromCharCode(97 + index)}`;
    const permissionIds = unique(permissions.map((at) => all[at % all.length].id));
    const [{ id }] = await db.query(`INSERT INTO organization_roles (name) VALUES ($1) RETURNING id`, [name]);
    await db.query(`INSERT INTO organization_role_permissions (role_id, permission_id) SELECT $1, unnest($2::uuid[])`, [
      id,
      permissionIds,
    ]);
    organizationRoles.push({ id, name, isSystem: false, permissionIds });
  }
  const organizations: ModelOrganization[] = [];
  for (const [index, organization] of (spec.organizations ?? []).entries()) {
    const slug = `model-${history}-o${index}-${Date.now().toString(36)}`;
    const [{ id }] = await db.query(`INSERT INTO organizations (slug, name) VALUES ($1, $2) RETURNING id`, [
      slug,
      `Model Organization ${index}`,
    ]);
    const members: ModelMembership[] = [];
    for (const [position, member] of organization.members.entries()) {
      const userId = users[member.user % users.length].id;
      if (members.some((other) => other.userId === userId)) continue;
      const roleIds = unique(
        (position === 0 ? [0, ...member.roles] : member.roles).map(
          (at) => organizationRoles[at % organizationRoles.length].id,
        ),
      );
      await db.query(`INSERT INTO organization_members (organization_id, user_id) VALUES ($1, $2)`, [id, userId]);
      await db.query(
        `INSERT INTO organization_member_roles (organization_id, user_id, role_id) SELECT $1, $2, unnest($3::uuid[])`,
        [id, userId, roleIds],
      );
      members.push({ userId, roleIds });
    }
    organizations.push({ id, label: `org${index}`, slug, members });
  }
  return { organizationRoles, organizations };
}

/** The organizations with their members, and the template, as the database holds them now. */
export async function readOrganizations(db: DataSource): Promise<OrganizationSnapshot> {
  const organizations: { id: string }[] = await db.query(`SELECT id FROM organizations`);
  const members: { organization_id: string; user_id: string; role_ids: string[] | string }[] = await db.query(
    `SELECT m.organization_id, m.user_id,
            COALESCE(array_agg(r.role_id) FILTER (WHERE r.role_id IS NOT NULL), '{}') AS role_ids
       FROM organization_members m
       LEFT JOIN organization_member_roles r ON r.organization_id = m.organization_id AND r.user_id = m.user_id
      GROUP BY m.organization_id, m.user_id`,
  );
  const roles: { id: string; name: string; is_system: boolean; permission_ids: string[] | string }[] = await db.query(
    `SELECT r.id, r.name, r.is_system,
            COALESCE(array_agg(rp.permission_id) FILTER (WHERE rp.permission_id IS NOT NULL), '{}') AS permission_ids
       FROM organization_roles r LEFT JOIN organization_role_permissions rp ON rp.role_id = r.id GROUP BY r.id`,
  );
  const permissions: OrganizationPermissionRow[] = await db.query(`SELECT id, name FROM organization_permissions`);
  return normaliseOrganizations({
    organizations: organizations.map((row) => ({
      id: row.id,
      members: members
        .filter((member) => member.organization_id === row.id)
        .map((member) => ({ userId: member.user_id, roleIds: pgArray(member.role_ids) })),
    })),
    roles: roles.map((row) => ({
      id: row.id,
      name: row.name,
      isSystem: row.is_system,
      permissionIds: pgArray(row.permission_ids),
    })),
    permissions: permissions.map(({ id, name }) => ({ id, name })),
  });
}

/** The model's organizations as a snapshot, to compare with the database's. */
export function toOrganizationSnapshot(state: ModelState): OrganizationSnapshot {
  return normaliseOrganizations({
    organizations: state.organizations.map((row) => ({
      id: row.id,
      members: row.members.map(({ userId, roleIds }) => ({ userId, roleIds })),
    })),
    roles: state.organizationRoles.map(({ id, name, isSystem, permissionIds }) => ({
      id,
      name,
      isSystem,
      permissionIds,
    })),
    permissions: state.organizationPermissions.map(({ id, name }) => ({ id, name })),
  });
}

/** Where two organization snapshots differ, in words, or null. */
export function organizationDifference(
  label: (id: string) => string,
  expected: OrganizationSnapshot,
  actual: OrganizationSnapshot,
): string | null {
  const lines: string[] = [];
  const show = (rows: { id: string }[]) =>
    new Map(rows.map((row) => [row.id, JSON.stringify(row, (key, value) => relabelValue(label, key, value))]));
  for (const kind of ['organizations', 'roles', 'permissions'] as const) {
    const want = show(expected[kind]);
    const got = show(actual[kind]);
    for (const [id, row] of want) {
      if (!got.has(id)) lines.push(`organization ${kind}: the model has ${row}, the database has no such row`);
      else if (got.get(id) !== row)
        lines.push(`organization ${kind}: the model has ${row}, the database ${got.get(id)}`);
    }
    for (const [id, row] of got)
      if (!want.has(id)) lines.push(`organization ${kind}: the database has ${row}, the model does not`);
  }
  return lines.length ? lines.join('\n') : null;
}

function normaliseOrganizations(snapshot: OrganizationSnapshot): OrganizationSnapshot {
  const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id));
  return {
    organizations: byId(
      snapshot.organizations.map((row) => ({
        id: row.id,
        members: [...row.members]
          .map((member) => ({ userId: member.userId, roleIds: [...member.roleIds].sort() }))
          .sort((a, b) => a.userId.localeCompare(b.userId)),
      })),
    ),
    roles: byId(snapshot.roles.map((row) => ({ ...row, permissionIds: [...row.permissionIds].sort() }))),
    permissions: byId(snapshot.permissions),
  };
}

/** Roles, permissions and accounts as the database holds them now. */
export async function readSnapshot(db: DataSource): Promise<Snapshot> {
  const permissions: { id: string; name: string; is_system: boolean }[] = await db.query(
    `SELECT id, name, is_system FROM permissions`,
  );
  const roles: { id: string; name: string; is_system: boolean; permission_ids: string[] }[] = await db.query(
    `SELECT r.id, r.name, r.is_system,
            COALESCE(array_agg(rp.permission_id) FILTER (WHERE rp.permission_id IS NOT NULL), '{}') AS permission_ids
       FROM roles r LEFT JOIN role_permissions rp ON rp.role_id = r.id GROUP BY r.id`,
  );
  const users: { id: string; enabled: boolean; role_ids: string[] }[] = await db.query(
    `SELECT u.id,
            (u.disabled_at IS NULL OR (u.disabled_until IS NOT NULL AND u.disabled_until <= now())) AS enabled,
            COALESCE(array_agg(ur.role_id) FILTER (WHERE ur.role_id IS NOT NULL), '{}') AS role_ids
       FROM users u LEFT JOIN user_roles ur ON ur.user_id = u.id GROUP BY u.id`,
  );
  return normalise({
    permissions: permissions.map((row) => ({ id: row.id, name: row.name, isSystem: row.is_system })),
    roles: roles.map((row) => ({
      id: row.id,
      name: row.name,
      isSystem: row.is_system,
      permissionIds: pgArray(row.permission_ids),
    })),
    users: users.map((row) => ({ id: row.id, enabled: row.enabled, roleIds: pgArray(row.role_ids) })),
  });
}

/** The model's state as a snapshot, to compare with the database's. */
export function toSnapshot(state: ModelState): Snapshot {
  return normalise({
    permissions: state.permissions.map(({ id, name, isSystem }) => ({ id, name, isSystem })),
    roles: state.roles.map(({ id, name, isSystem, permissionIds }) => ({ id, name, isSystem, permissionIds })),
    users: state.users.map(({ id, enabled, roleIds }): UserRow => ({ id, enabled, roleIds })),
  });
}

/** Where two snapshots differ, in words, or null. */
export function difference(label: (id: string) => string, expected: Snapshot, actual: Snapshot): string | null {
  const lines: string[] = [];
  const show = (rows: { id: string }[]) =>
    new Map(rows.map((row) => [row.id, JSON.stringify(row, (key, value) => relabelValue(label, key, value))]));
  for (const kind of ['permissions', 'roles', 'users'] as const) {
    const want = show(expected[kind]);
    const got = show(actual[kind]);
    for (const [id, row] of want) {
      if (!got.has(id)) lines.push(`${kind}: the model has ${row}, the database has no such row`);
      else if (got.get(id) !== row) lines.push(`${kind}: the model has ${row}, the database ${got.get(id)}`);
    }
    for (const [id, row] of got) if (!want.has(id)) lines.push(`${kind}: the database has ${row}, the model does not`);
  }
  return lines.length ? lines.join('\n') : null;
}

export function send(real: Real, call: HttpCall): Promise<Response> {
  const server = real.app.getHttpServer();
  const method = call.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  const req = request(server)[method](call.path);
  const token = call.actor ? real.tokens.get(call.actor) : undefined;
  if (call.actor) void req.set('authorization', `Bearer ${token ?? 'no-live-session'}`);
  return call.body === undefined ? req : req.send(call.body);
}

/** Gives every id of the state a readable label (`u1`, `role:role-a`, `perm:users.edit`). */
export function relabel(real: Real, state: ModelState): void {
  for (const user of state.users) real.labels.set(user.id, user.label);
  for (const role of state.roles) if (!real.labels.has(role.id)) real.labels.set(role.id, `role:${role.name}`);
  for (const permission of state.permissions)
    if (!real.labels.has(permission.id)) real.labels.set(permission.id, `perm:${permission.name}`);
  for (const organization of state.organizations) real.labels.set(organization.id, organization.label);
  for (const role of state.organizationRoles)
    if (!real.labels.has(role.id)) real.labels.set(role.id, `org-role:${role.name}`);
  for (const permission of state.organizationPermissions)
    if (!real.labels.has(permission.id)) real.labels.set(permission.id, `org-perm:${permission.name}`);
  for (const invitation of state.invitations) real.labels.set(invitation.id, `invitation:${invitation.id.slice(0, 4)}`);
}

/** One HTTP call as a line of the printed history: method, path, actor, body, with ids as labels. */
export function describeCall(real: Real, call: HttpCall): string {
  const label = (id: string) => real.labels.get(id) ?? id;
  const path = call.path.replace(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
    (id) => `{${label(id)}}`,
  );
  const body =
    call.body === undefined ? '' : ` ${JSON.stringify(call.body, (key, value) => relabelValue(label, key, value))}`;
  return `${call.method} ${path} as ${call.actor ? label(call.actor) : '(no token)'}${body}`;
}

function relabelValue(label: (id: string) => string, _key: string, value: unknown): unknown {
  if (typeof value === 'string') return /^[0-9a-f-]{36}$/.test(value) ? label(value) : value;
  return value;
}

function normalise(snapshot: Snapshot): Snapshot {
  const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id));
  return {
    permissions: byId(snapshot.permissions),
    roles: byId(snapshot.roles.map((row) => ({ ...row, permissionIds: [...row.permissionIds].sort() }))),
    users: byId(snapshot.users.map((row) => ({ ...row, roleIds: [...row.roleIds].sort() }))),
  };
}

/** node-postgres gives uuid[] as an array; an embedded database may give its text form. */
function pgArray(value: string[] | string): string[] {
  if (Array.isArray(value)) return value;
  const inner = value.replace(/^\{|\}$/g, '');
  return inner ? inner.split(',') : [];
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

export const PASSWORD = NEW_USER_PASSWORD;
