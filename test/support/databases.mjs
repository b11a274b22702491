// Plain JavaScript on the built service: Jest loads its global setup outside its own module
// system, so this file is shared by the global setup and the tests. `npm test` builds first.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../dist/src/database/embedded-postgres.js';

/**
 * A new database of the run's kind: with a server URL, a new database on that server (dropped by
 * `drop`); without, an in-memory embedded PostgreSQL served to the same `pg` driver.
 * @param {string | undefined} serverUrl
 * @param {string} prefix
 * @returns {Promise<{ url: string, kind: 'server' | 'embedded', drop(): Promise<void> }>}
 */
export async function createTestDatabase(serverUrl, prefix = 'auth_test') {
  if (!serverUrl) {
    const embedded = await startEmbeddedPostgres({ maxConnections: 40 });
    return { url: embedded.url, kind: 'embedded', drop: () => embedded.stop() };
  }
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    kind: 'server',
    drop: () => withAdminClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  };
}

async function withAdminClient(serverUrl, work) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
