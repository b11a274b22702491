import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { useTestDatabase } from '../support/fixture.js';

const UNIQUE_VIOLATION = '23505';

describe('schema constraints', () => {
  let db: DataSource;

  const fixture = useTestDatabase();
  beforeAll(() => void ({ db } = fixture));

  const unique = (label: string) => `${label}-${randomUUID()}`;

  async function insertRole(name = unique('role')): Promise<string> {
    const [{ id }] = await db.query(`INSERT INTO roles (name) VALUES ($1) RETURNING id`, [name]);
    return id;
  }

  async function insertPermission(name = `${unique('res')}.view`): Promise<string> {
    const [{ id }] = await db.query(`INSERT INTO permissions (name) VALUES ($1) RETURNING id`, [name]);
    return id;
  }

  async function insertUser(): Promise<string> {
    const [{ id }] = await db.query(
      `INSERT INTO users (name, email, password_hash) VALUES ('T', $1, 'x') RETURNING id`,
      [`${unique('u')}@example.com`],
    );
    return id;
  }

  it('generates UUID ids and timestamps in the database', async () => {
    const [row] = await db.query(
      `INSERT INTO roles (name) VALUES ($1) RETURNING id, is_system, created_at, updated_at`,
      [unique('role')],
    );
    expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(row.is_system).toBe(false);
    expect(row.created_at).toBeInstanceOf(Date);
    expect(row.updated_at).toBeInstanceOf(Date);
  });

  it('refuses a duplicate role name', async () => {
    const name = unique('role');
    await insertRole(name);
    await expect(insertRole(name)).rejects.toMatchObject({ code: UNIQUE_VIOLATION });
  });

  it('refuses a duplicate permission name and a duplicate user email', async () => {
    const name = `${unique('res')}.edit`;
    await insertPermission(name);
    await expect(insertPermission(name)).rejects.toMatchObject({ code: UNIQUE_VIOLATION });
    const email = `${unique('dup')}@example.com`;
    await db.query(`INSERT INTO users (name, email, password_hash) VALUES ('A', $1, 'x')`, [email]);
    await expect(
      db.query(`INSERT INTO users (name, email, password_hash) VALUES ('B', $1, 'x')`, [email]),
    ).rejects.toMatchObject({
      code: UNIQUE_VIOLATION,
    });
  });

  it('refuses names longer than 255 characters', async () => {
    await expect(insertRole('r'.repeat(256))).rejects.toMatchObject({ code: '22001' });
    await expect(insertRole('r'.repeat(255))).resolves.toBeDefined();
  });

  it('refuses a duplicate pair in either join table', async () => {
    const [userId, roleId, permissionId] = [await insertUser(), await insertRole(), await insertPermission()];
    await db.query(`INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2)`, [userId, roleId]);
    await expect(
      db.query(`INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2)`, [userId, roleId]),
    ).rejects.toMatchObject({
      code: UNIQUE_VIOLATION,
    });
    await db.query(`INSERT INTO role_permissions (role_id, permission_id) VALUES ($1, $2)`, [roleId, permissionId]);
    await expect(
      db.query(`INSERT INTO role_permissions (role_id, permission_id) VALUES ($1, $2)`, [roleId, permissionId]),
    ).rejects.toMatchObject({ code: UNIQUE_VIOLATION });
  });

  it("removes a role's links to users and permissions when the role is deleted", async () => {
    const [userId, roleId, permissionId] = [await insertUser(), await insertRole(), await insertPermission()];
    await db.query(`INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2)`, [userId, roleId]);
    await db.query(`INSERT INTO role_permissions (role_id, permission_id) VALUES ($1, $2)`, [roleId, permissionId]);
    await db.query(`DELETE FROM roles WHERE id = $1`, [roleId]);
    expect(await db.query(`SELECT 1 FROM user_roles WHERE role_id = $1`, [roleId])).toHaveLength(0);
    expect(await db.query(`SELECT 1 FROM role_permissions WHERE role_id = $1`, [roleId])).toHaveLength(0);
    // The other ends survive.
    expect(await db.query(`SELECT 1 FROM users WHERE id = $1`, [userId])).toHaveLength(1);
    expect(await db.query(`SELECT 1 FROM permissions WHERE id = $1`, [permissionId])).toHaveLength(1);
  });

  it('removes links when the user or the permission is deleted', async () => {
    const [userId, roleId, permissionId] = [await insertUser(), await insertRole(), await insertPermission()];
    await db.query(`INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2)`, [userId, roleId]);
    await db.query(`INSERT INTO role_permissions (role_id, permission_id) VALUES ($1, $2)`, [roleId, permissionId]);
    await db.query(`DELETE FROM users WHERE id = $1`, [userId]);
    await db.query(`DELETE FROM permissions WHERE id = $1`, [permissionId]);
    expect(await db.query(`SELECT 1 FROM user_roles WHERE user_id = $1`, [userId])).toHaveLength(0);
    expect(await db.query(`SELECT 1 FROM role_permissions WHERE permission_id = $1`, [permissionId])).toHaveLength(0);
    expect(await db.query(`SELECT 1 FROM roles WHERE id = $1`, [roleId])).toHaveLength(1);
  });

  it('refuses a link to a user or role that does not exist', async () => {
    await expect(
      db.query(`INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2)`, [randomUUID(), await insertRole()]),
    ).rejects.toMatchObject({ code: '23503' });
  });
});
