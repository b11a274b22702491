import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { fileDatabase, testDataSource } from '../support/test-database.js';

/** Connections in a medium test file's pool, all opened before its tests. */
const POOL_SIZE = 4;

/** A data source on the test file's database (a copy of the migrated, seeded template). */
export interface MediumDatabase {
  db: DataSource;
}

/**
 * For a medium test file: a data source on the file's own database, opened before its tests and
 * closed after them. Repositories are built on it directly (`new XRepository(fixture.db)`); its
 * pool holds several connections, so statements started together run on separate ones.
 */
export function useMediumDatabase(): MediumDatabase {
  const fixture = {} as MediumDatabase;
  beforeAll(async () => {
    fixture.db = testDataSource((await fileDatabase()).url, POOL_SIZE);
    await fixture.db.initialize();
    // Every connection of the pool opened now, so statements started together run together
    // rather than behind a connection's set-up.
    await Promise.all(Array.from({ length: POOL_SIZE }, () => fixture.db.query('SELECT pg_sleep(0.05)')));
  });
  afterAll(async () => {
    if (fixture.db?.isInitialized) await fixture.db.destroy();
  });
  return fixture;
}

/** A user row written directly, with a unique email; answers its id. */
export async function insertUser(
  db: DataSource,
  fields: { mobile?: string | null; disabledAt?: Date | null; disabledUntil?: Date | null } = {},
): Promise<string> {
  const [{ id }]: { id: string }[] = await db.query(
    `INSERT INTO users (name, email, mobile, password_hash, disabled_at, disabled_until)
     VALUES ('Medium Test', $1, $2, 'not-a-hash', $3, $4) RETURNING id`,
    [
      `medium-${randomUUID()}@example.com`,
      fields.mobile ?? null,
      fields.disabledAt ?? null,
      fields.disabledUntil ?? null,
    ],
  );
  return id;
}

/** A role with a unique name holding exactly `permissions` (names; an unknown one throws). */
export async function insertRole(db: DataSource, permissions: readonly string[], name = `medium-${randomUUID()}`) {
  const [{ id }]: { id: string }[] = await db.query(`INSERT INTO roles (name) VALUES ($1) RETURNING id`, [name]);
  const linked: unknown[] = await db.query(
    `INSERT INTO role_permissions (role_id, permission_id) SELECT $1, id FROM permissions WHERE name = ANY($2) RETURNING 1`,
    [id, [...permissions]],
  );
  if (linked.length !== new Set(permissions).size)
    throw new Error(`unknown permission among ${permissions.join(', ')}`);
  return { id, name };
}

/** Gives roles (by id) to a user. */
export async function assignRoles(db: DataSource, userId: string, roleIds: readonly string[]): Promise<void> {
  await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, unnest($2::uuid[])`, [userId, [...roleIds]]);
}

/** The id of a seeded role (`admin`, `user`). */
export async function roleId(db: DataSource, name: string): Promise<string> {
  const [row]: { id: string }[] = await db.query(`SELECT id FROM roles WHERE name = $1`, [name]);
  if (!row) throw new Error(`no role ${name}`);
  return row.id;
}
