import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import request, { type Response } from 'supertest';
import type { DataSource } from 'typeorm';
import { loginTokens, registerUser, type RegisteredUser } from './auth-factory.js';

/** A registered user and the access token of a session opened after their roles were set. */
export interface Caller extends RegisteredUser {
  token: string;
}

/**
 * A custom role holding exactly these permissions (by name, e.g. `Permissions.ContentsView`),
 * written directly in SQL. Throws on a name that is not a permission, so a typo fails loudly.
 */
export async function roleWithPermissions(
  db: DataSource,
  permissions: readonly string[],
  label = 'test-role',
): Promise<{ id: string; name: string }> {
  const name = `${label}-${randomUUID()}`;
  const [{ id }] = await db.query(`INSERT INTO roles (name) VALUES ($1) RETURNING id`, [name]);
  const linked: unknown[] = await db.query(
    `INSERT INTO role_permissions (role_id, permission_id) SELECT $1, id FROM permissions WHERE name = ANY($2) RETURNING permission_id`,
    [id, [...permissions]],
  );
  if (linked.length !== new Set(permissions).size)
    throw new Error(`unknown permission among ${permissions.join(', ')}`);
  return { id, name };
}

/** Adds roles to a user directly in SQL (idempotent). */
export async function grantRoles(db: DataSource, userId: string, roleIds: readonly string[]): Promise<void> {
  await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING`, [
    userId,
    [...roleIds],
  ]);
}

/**
 * A new user holding the `user` role (no permissions) plus a role with exactly `permissions`.
 * SQL changes do not bump the authorization versions, so the caller signs in again after the
 * grant: the returned token's session has never had its caller cached.
 */
export async function callerWithPermissions(
  app: NestFastifyApplication,
  db: DataSource,
  permissions: readonly string[],
): Promise<Caller> {
  const user = await registerUser(app);
  if (permissions.length === 0) return { ...user, token: user.tokens.access_token };
  const role = await roleWithPermissions(db, permissions);
  await grantRoles(db, user.id, [role.id]);
  const tokens = await loginTokens(app, user);
  return { ...user, tokens, token: tokens.access_token };
}

/**
 * A registered user holding exactly `roles` (by name, the `user` role only if named), signed in
 * afresh so that the session's caller is loaded after the grant.
 */
export async function callerWithRoles(app: NestFastifyApplication, db: DataSource, roles: string[]): Promise<Caller> {
  const user = await registerUser(app);
  await db.query(`DELETE FROM user_roles WHERE user_id = $1`, [user.id]);
  if (roles.length > 0) {
    await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = ANY($2)`, [
      user.id,
      roles,
    ]);
  }
  const tokens = await loginTokens(app, user);
  return { ...user, tokens, token: tokens.access_token };
}

/** A caller whose only role (not even `user`) holds exactly these permissions. */
export async function callerWithOnlyPermissions(
  app: NestFastifyApplication,
  db: DataSource,
  permissions: string[],
): Promise<Caller> {
  const role = await roleWithPermissions(db, permissions);
  return callerWithRoles(app, db, [role.name]);
}

/** The id of a role or permission, by name. */
export async function idOf(db: DataSource, table: 'roles' | 'permissions', name: string): Promise<string> {
  const [row] = await db.query(`SELECT id FROM ${table} WHERE name = $1`, [name]);
  return row.id;
}

type Method = 'get' | 'post' | 'put' | 'delete';

/** One request, with a bearer token when given and a JSON body when given. */
export function call(
  app: NestFastifyApplication,
  method: Method,
  path: string,
  token?: string,
  body?: unknown,
): Promise<Response> {
  const req = request(app.getHttpServer())[method](path);
  if (token) void req.set('authorization', `Bearer ${token}`);
  return body === undefined ? req : req.send(body as object);
}
