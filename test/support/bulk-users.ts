import { hash } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';

/** Anything with `query(sql, params)`: a TypeORM DataSource or a `pg` client. */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

export interface BulkUsersOptions {
  /** Starts every email (`${prefix}-${n}@bulk.example.com`), so several fixtures can share a database. */
  prefix?: string;
  /** Every `roleEvery`-th user also holds each of these roles (by name). */
  roleNames?: readonly string[];
  roleEvery?: number;
}

/**
 * Inserts `count` users in one statement (generate_series), so 300,000 take seconds. They are
 * created one second apart from 2020-01-01, so they sort before any user a test makes, and share
 * one Argon2 hash of a random password nobody knows: nobody can sign in as them.
 */
export async function insertBulkUsers(db: Queryable, count: number, options: BulkUsersOptions = {}): Promise<void> {
  const prefix = options.prefix ?? `bulk${randomBytes(3).toString('hex')}`;
  const passwordHash = await hash(randomBytes(16).toString('hex'), { memoryCost: 1024, timeCost: 1, parallelism: 1 });
  await db.query(
    `WITH inserted AS (
       INSERT INTO users (name, email, password_hash, created_at, updated_at)
       SELECT format('Bulk User %s %s', $1::text, i), format('%s-%s@bulk.example.com', $1::text, i), $2, at, at
         FROM generate_series(1, $3::int) AS i,
              LATERAL (SELECT timestamptz '2020-01-01 00:00:00+00' + i * interval '1 second' AS at) AS t
       RETURNING id, email
     )
     INSERT INTO user_roles (user_id, role_id)
     SELECT inserted.id, roles.id
       FROM inserted JOIN roles ON roles.name = ANY($4::text[])
      WHERE substring(inserted.email FROM '-([0-9]+)@')::int % $5::int = 0`,
    [prefix, passwordHash, count, [...(options.roleNames ?? ['user'])], options.roleEvery ?? 5],
  );
  // What autovacuum would do after a bulk load: fresh statistics for the planner, and a
  // visibility map, so counts can read the index alone.
  await db.query(`VACUUM ANALYZE users`);
  await db.query(`VACUUM ANALYZE user_roles`);
}
