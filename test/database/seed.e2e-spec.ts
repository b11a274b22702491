import type { DataSource } from 'typeorm';
import { PasswordHasher } from '../../src/identity/password-hasher.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { describePermission, SEEDED_PERMISSIONS } from '../../src/rbac/seeds/seed-data.js';
import { SeedService } from '../../src/rbac/seeds/seed.service.js';
import { createTestConfig } from '../support/test-config.js';
import { withDatabase } from '../support/test-database.js';

/** A seeder on `dataSource`, a copy of the run's migrated, never seeded template. */
function seederOn(dataSource: DataSource, config: AppConfig = createTestConfig()) {
  return new SeedService(dataSource, config, new PasswordHasher(config));
}

async function counts(dataSource: DataSource) {
  const [row] = await dataSource.query(`
    SELECT (SELECT count(*) FROM permissions)::int AS permissions,
           (SELECT count(*) FROM roles)::int AS roles,
           (SELECT count(*) FROM role_permissions rp JOIN roles r ON r.id = rp.role_id WHERE r.name = 'admin')::int AS admin_links,
           (SELECT count(*) FROM role_permissions rp JOIN roles r ON r.id = rp.role_id WHERE r.name = 'user')::int AS user_links,
           (SELECT count(*) FROM users)::int AS users,
           (SELECT count(*) FROM user_roles)::int AS user_roles`);
  return row;
}

/** Production refuses to start with one-time codes going to the log. */
/** A production configuration (the seeder reads it; the data source is the test's own). */
const PRODUCTION = {
  APP_ENV: 'production',
  SMS_TRANSPORT: 'webhook',
  SMS_WEBHOOK_URL: 'http://127.0.0.1:9/sms',
  DATABASE_URL: 'postgres://auth@db.example.com:5432/auth',
};

describe('seeding', () => {
  it("creates the specification's default data", () =>
    withDatabase('migrated', async (dataSource) => {
      const seeder = seederOn(dataSource);
      expect(await seeder.isEmpty()).toBe(true);
      await seeder.run();
      expect(await seeder.isEmpty()).toBe(false);

      const permissions: { name: string; display_name: string; group_name: string; is_system: boolean }[] =
        await dataSource.query(`SELECT name, display_name, group_name, is_system FROM permissions ORDER BY name`);
      expect(permissions.map((p) => p.name)).toEqual([
        'audit.view',
        'clients.create',
        'clients.delete',
        'clients.edit',
        'clients.view',
        'contents.create',
        'contents.delete',
        'contents.edit',
        'contents.view',
        'organizations.create',
        'organizations.delete',
        'organizations.edit',
        'organizations.view',
        'roles.create',
        'roles.delete',
        'roles.edit',
        'roles.view',
        'settings.edit',
        'settings.view',
        'users.create',
        'users.delete',
        'users.edit',
        'users.view',
      ]);
      expect(permissions.every((p) => p.is_system)).toBe(true);
      expect(permissions.find((p) => p.name === 'users.view')).toMatchObject({
        display_name: 'View Users',
        group_name: 'Users',
      });
      expect(permissions.find((p) => p.name === 'settings.edit')).toMatchObject({
        display_name: 'Edit Settings',
        group_name: 'Settings',
      });

      const roles = await dataSource.query(`SELECT name, is_system FROM roles ORDER BY name`);
      expect(roles).toEqual([
        { name: 'admin', is_system: true },
        { name: 'user', is_system: true },
      ]);
      expect(await counts(dataSource)).toMatchObject({ admin_links: 23, user_links: 0 });
    }));

  it('is idempotent: seeding twice leaves the same rows', () =>
    withDatabase('migrated', async (dataSource) => {
      const seeder = seederOn(dataSource);
      const first = await seeder.run();
      const before = await counts(dataSource);
      const second = await seeder.run();
      expect(await counts(dataSource)).toEqual(before);
      expect(first).toMatchObject({ permissionsCreated: 23, rolesCreated: 2, adminLinksCreated: 23 });
      expect(second).toMatchObject({
        permissionsCreated: 0,
        rolesCreated: 0,
        adminLinksCreated: 0,
        accountsCreated: [],
      });
    }));

  it('links a permission added to the seed list later to admin on the next seeding', () =>
    withDatabase('migrated', async (dataSource) => {
      const seeder = seederOn(dataSource);
      await seeder.run();
      const report = await seeder.run([...SEEDED_PERMISSIONS, describePermission('reports.view')]);
      expect(report).toMatchObject({ permissionsCreated: 1, adminLinksCreated: 1 });
      const linked = await dataSource.query(
        `SELECT 1 FROM role_permissions rp JOIN roles r ON r.id = rp.role_id JOIN permissions p ON p.id = rp.permission_id
         WHERE r.name = 'admin' AND p.name = 'reports.view'`,
      );
      expect(linked).toHaveLength(1);
    }));

  it('gives admin every permission, also ones created outside seeding', () =>
    withDatabase('migrated', async (dataSource) => {
      const seeder = seederOn(dataSource);
      await seeder.run();
      await dataSource.query(`INSERT INTO permissions (name) VALUES ('invoices.view')`);
      expect((await seeder.run()).adminLinksCreated).toBe(1);
    }));

  it('leaves a hand-edited permission and role unchanged', () =>
    withDatabase('migrated', async (dataSource) => {
      const seeder = seederOn(dataSource);
      await seeder.run();
      await dataSource.query(`UPDATE permissions SET display_name = 'See people' WHERE name = 'users.view'`);
      await dataSource.query(`UPDATE roles SET description = 'Our own words' WHERE name = 'user'`);
      await seeder.run();
      const [permission] = await dataSource.query(`SELECT display_name FROM permissions WHERE name = 'users.view'`);
      const [role] = await dataSource.query(`SELECT description FROM roles WHERE name = 'user'`);
      expect(permission.display_name).toBe('See people');
      expect(role.description).toBe('Our own words');
    }));

  it('seeds the configured accounts with their roles and normalised mobiles, once', () =>
    withDatabase('migrated', async (dataSource) => {
      const config = createTestConfig({
        ...PRODUCTION,
        SEED_ADMIN_EMAIL: ' Boss@Example.COM ',
        SEED_ADMIN_PASSWORD: 'admin-password-1',
        SEED_ADMIN_MOBILE: '+49 176 9000 0123',
        SEED_USER_EMAIL: 'member@example.com',
        SEED_USER_PASSWORD: 'user-password-1',
      });
      const seeder = seederOn(dataSource, config);
      const report = await seeder.run();
      expect(report.accountsCreated).toEqual([
        { role: 'admin', email: 'boss@example.com', generatedPassword: undefined },
        { role: 'user', email: 'member@example.com', generatedPassword: undefined },
      ]);
      const accounts = await dataSource.query(
        `SELECT u.email, u.mobile, u.password_hash, r.name AS role FROM users u
         JOIN user_roles ur ON ur.user_id = u.id JOIN roles r ON r.id = ur.role_id ORDER BY u.email`,
      );
      expect(accounts).toMatchObject([
        { email: 'boss@example.com', mobile: '+4917690000123', role: 'admin' },
        { email: 'member@example.com', mobile: null, role: 'user' },
      ]);
      const hasher = new PasswordHasher(config);
      expect(await hasher.verify(accounts[0].password_hash, 'admin-password-1')).toBe(true);

      // A second run keeps the existing accounts, their passwords and their single role link.
      const again = await seeder.run();
      expect(again.accountsCreated).toEqual([]);
      expect(again.accountsSkipped).toEqual([]);
      const [after] = await dataSource.query(`SELECT password_hash FROM users WHERE email = 'boss@example.com'`);
      expect(after.password_hash).toBe(accounts[0].password_hash);
      expect(await counts(dataSource)).toMatchObject({ users: 2, user_roles: 2 });
    }));

  it('generates passwords outside production and reports them once', () =>
    withDatabase('migrated', async (dataSource) => {
      const seeder = seederOn(dataSource, createTestConfig({ APP_ENV: 'development' }));
      const report = await seeder.run();
      expect(report.accountsCreated).toHaveLength(2);
      for (const account of report.accountsCreated) expect(account.generatedPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
      const [{ password_hash }] = await dataSource.query(
        `SELECT password_hash FROM users WHERE email = 'admin@example.com'`,
      );
      expect(password_hash).not.toContain(report.accountsCreated[0].generatedPassword);
      expect((await seeder.run()).accountsCreated).toEqual([]);
    }));

  it('creates no account in production without a configured password', () =>
    withDatabase('migrated', async (dataSource) => {
      const seeder = seederOn(dataSource, createTestConfig(PRODUCTION));
      const report = await seeder.run();
      expect(report.accountsCreated).toEqual([]);
      expect(await counts(dataSource)).toMatchObject({ users: 0, roles: 2, permissions: 23 });
    }));

  it('refuses a seed password shorter than 8 characters', () =>
    withDatabase('migrated', async (dataSource) => {
      const seeder = seederOn(dataSource, createTestConfig({ SEED_ADMIN_PASSWORD: 'short' }));
      await expect(seeder.run()).rejects.toThrow('SEED_ADMIN_PASSWORD must be 8 to 128 characters long.');
    }));

  it('survives two seeders running at once', () =>
    withDatabase('migrated', async (dataSource) => {
      const seeder = seederOn(dataSource);
      await Promise.all([seeder.run(), seeder.run()]);
      expect(await counts(dataSource)).toMatchObject({
        permissions: 23,
        roles: 2,
        admin_links: 23,
        users: 2,
        user_roles: 2,
      });
    }));
});
