import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request, { type Response } from 'supertest';
import type { DataSource } from 'typeorm';
import { loginTokens, registerUser, type RegisteredUser } from '../support/auth-factory.js';
import { roleWithPermissions } from '../support/rbac-factory.js';

export { roleWithPermissions };

export interface Actor extends RegisteredUser {
  token: string;
}

/**
 * A registered user holding exactly `roles` (by name), signed in afresh so that the session's
 * caller is loaded after the grant.
 */
export async function actorWithRoles(app: NestFastifyApplication, db: DataSource, roles: string[]): Promise<Actor> {
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

/** An actor whose only role holds exactly these permissions. */
export async function actorWithPermissions(
  app: NestFastifyApplication,
  db: DataSource,
  permissions: string[],
): Promise<Actor> {
  const role = await roleWithPermissions(db, permissions);
  return actorWithRoles(app, db, [role.name]);
}

export async function idOf(db: DataSource, table: 'roles' | 'permissions', name: string): Promise<string> {
  const [row] = await db.query(`SELECT id FROM ${table} WHERE name = $1`, [name]);
  return row.id;
}

type Method = 'get' | 'post' | 'put' | 'delete';

export function call(
  app: NestFastifyApplication,
  method: Method,
  path: string,
  token?: string,
  body?: object,
): Promise<Response> {
  const req = request(app.getHttpServer())[method](path);
  if (token) req.set('authorization', `Bearer ${token}`);
  return body ? req.send(body) : req;
}
