import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DataSource } from 'typeorm';
import { PasswordHasher } from '../../src/identity/password-hasher.js';
import { SeedService } from '../../src/rbac/seeds/seed.service.js';
import { loginTokens, registerUser } from '../support/auth-factory.js';
import { createTestApp } from '../support/test-app.js';
import { createTestConfig } from '../support/test-config.js';
import { withDatabase } from '../support/test-database.js';
import { call } from '../support/rbac-factory.js';

const ADMIN = { email: 'only-admin@example.com', password: 'Plum-Orbit-Lantern-42' };
const SEED_ENV = {
  APP_ENV: 'production',
  // The seed's configuration only: the seed runs on the test's own data source.
  DATABASE_URL: 'postgres://auth@db.example.com:5432/auth',
  SMS_TRANSPORT: 'webhook',
  SMS_WEBHOOK_URL: 'http://127.0.0.1:9/sms',
  SEED_ADMIN_EMAIL: ADMIN.email,
  SEED_ADMIN_PASSWORD: ADMIN.password,
};

/** A database whose only administrator is ADMIN, and an app on it. */
async function withSoleAdmin(work: (app: NestFastifyApplication, db: DataSource, adminToken: string) => Promise<void>) {
  await withDatabase('migrated', async (db, database) => {
    const config = createTestConfig(SEED_ENV);
    await new SeedService(db, config, new PasswordHasher(config)).run();
    const app = await createTestApp({ env: { DATABASE_URL: database.url } });
    try {
      await work(app, db, (await loginTokens(app, ADMIN)).access_token);
    } finally {
      await app.close();
    }
  });
}

const adminRoleId = async (db: DataSource) =>
  (await db.query(`SELECT id FROM roles WHERE name = 'admin'`))[0].id as string;
const adminCount = async (db: DataSource) =>
  (
    await db.query(
      `SELECT count(*)::int AS n FROM user_roles ur JOIN roles r ON r.id = ur.role_id WHERE r.name = 'admin'`,
    )
  )[0].n;

describe('the last administrator', () => {
  it('cannot lose the admin role or be deleted (409), until another admin exists', () =>
    withSoleAdmin(async (app, db, token) => {
      const me = (await call(app, 'get', '/api/auth/me', token)).body.data;
      const roleId = await adminRoleId(db);

      const remove = await call(app, 'delete', `/api/admin/users/${me.id}/roles/${roleId}`, token);
      expect(remove.status).toBe(409);
      expect(remove.body.error.code).toBe('CONFLICT');
      const replace = await call(app, 'put', `/api/admin/users/${me.id}/roles`, token, { role_ids: [] });
      expect(replace.status).toBe(409);
      const del = await call(app, 'delete', `/api/admin/users/${me.id}`, token);
      expect(del.status).toBe(409);
      expect(await adminCount(db)).toBe(1);

      const other = await registerUser(app);
      expect(
        (await call(app, 'post', `/api/admin/users/${other.id}/roles`, token, { role_ids: [roleId] })).status,
      ).toBe(200);
      expect((await call(app, 'delete', `/api/admin/users/${me.id}/roles/${roleId}`, token)).status).toBe(200);
      expect(await adminCount(db)).toBe(1);
    }));

  it('survives two admins removing each other at once: one removal wins, one admin remains', () =>
    withSoleAdmin(async (app, db, token) => {
      const me = (await call(app, 'get', '/api/auth/me', token)).body.data;
      const roleId = await adminRoleId(db);
      const other = await registerUser(app);
      await call(app, 'post', `/api/admin/users/${other.id}/roles`, token, { role_ids: [roleId] });
      const otherToken = (await loginTokens(app, other)).access_token;

      const results = await Promise.all([
        call(app, 'delete', `/api/admin/users/${other.id}/roles/${roleId}`, token),
        call(app, 'delete', `/api/admin/users/${me.id}/roles/${roleId}`, otherToken),
      ]);
      const statuses = results.map((res) => res.status).sort();
      // The loser is refused either as the last admin (409) or, having just lost admin, for lack of roles.edit (403).
      expect(statuses[0]).toBe(200);
      expect([403, 409]).toContain(statuses[1]);
      expect(await adminCount(db)).toBe(1);
    }));
});
