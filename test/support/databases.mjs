// Plain JavaScript on the built service: Jest loads its global setup and test environments
// outside its own module system, so this file serves them and the tests alike. `npm test`
// builds first.
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../dist/src/infra/database/embedded-postgres.js';

// The service's code run here (embedded databases, migrations, seeding) logs only what is wrong:
// a line per test database would bury the tests' own output. Apps under test log on their own terms.
Logger.overrideLogger(['error', 'warn']);

/**
 * What a new test database starts from: `empty` (no schema), `migrated` (every migration, no
 * rows), `seeded` (migrated, then seeded as the service seeds a new database).
 * @typedef {'empty' | 'migrated' | 'seeded'} Template
 */

/** Connections one embedded database accepts: a test file may run several apps on it. */
const EMBEDDED_MAX_CONNECTIONS = 40;

/**
 * Builds the run's templates once, so that no test file migrates or seeds a database itself.
 * With a server URL: a migrated and a seeded database on that server, closed to connections,
 * that each test database copies (`CREATE DATABASE … TEMPLATE`). Without: the data folders of an
 * embedded database before the migrations, after them, and after seeding, that each test
 * database copies. `prepare` receives a database URL and the template it must turn it into.
 * Returns the variables that let any process of the run create databases (see `createDatabase`).
 * @param {string | undefined} serverUrl
 * @param {(url: string, template: 'migrated' | 'seeded') => Promise<void>} prepare
 * @returns {Promise<Record<string, string>>}
 */
export async function prepareTemplates(serverUrl, prepare) {
  const runId = `auth_t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  if (serverUrl) {
    const migrated = `${runId}_migrated`;
    const seeded = `${runId}_seeded`;
    await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE "${migrated}"`));
    await prepare(databaseUrl(serverUrl, migrated), 'migrated');
    await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE "${seeded}" TEMPLATE "${migrated}"`));
    await prepare(databaseUrl(serverUrl, seeded), 'seeded');
    // A template with a connection open cannot be copied: none may ever connect by mistake.
    await withAdminClient(serverUrl, async (client) => {
      for (const name of [migrated, seeded])
        await client.query(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    });
    return { TEST_DATABASE_KIND: 'server', TEST_SERVER_URL: serverUrl, TEST_RUN_ID: runId };
  }
  const folder = await mkdtemp(path.join(os.tmpdir(), `${runId}-`));
  const templates = path.join(folder, 'templates');
  // Starting an embedded database on a new folder creates its cluster (initdb), the slow part.
  await (await startEmbeddedPostgres({ dataDir: path.join(templates, 'empty'), maxConnections: 1 })).stop();
  let previous = 'empty';
  for (const template of /** @type {const} */ (['migrated', 'seeded'])) {
    const dataDir = path.join(templates, template);
    await cp(path.join(templates, previous), dataDir, { recursive: true });
    const embedded = await startEmbeddedPostgres({ dataDir, maxConnections: 2 });
    try {
      await prepare(embedded.url, template);
    } finally {
      await embedded.stop();
    }
    previous = template;
  }
  return { TEST_DATABASE_KIND: 'embedded', TEST_SERVER_URL: '', TEST_RUN_ID: runId, TEST_RUN_FOLDER: folder };
}

/**
 * Drops every database the run made (templates, and any test database left behind by a worker
 * that died), or removes the embedded run's folder.
 * @param {Record<string, string | undefined>} env the variables `prepareTemplates` returned
 */
export async function dropRun(env) {
  if (env.TEST_DATABASE_KIND === 'server') {
    await withAdminClient(env.TEST_SERVER_URL, async (client) => {
      const { rows } = await client.query(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [
        `${env.TEST_RUN_ID}_`,
      ]);
      for (const { datname } of rows) {
        await client.query(`ALTER DATABASE "${datname}" WITH IS_TEMPLATE false`);
        await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      }
    });
  } else if (env.TEST_RUN_FOLDER) {
    await rm(env.TEST_RUN_FOLDER, { recursive: true, force: true });
  }
}

let created = 0;

/**
 * A new database of the run's kind, a copy of `template`: on the server, a database created from
 * the template; embedded, a copy of the template's data folder served on a loopback port by this
 * process. `drop` removes it (and may be called more than once).
 * @param {Template} template
 * @param {Record<string, string | undefined>} env the run's variables (`prepareTemplates`)
 * @returns {Promise<{ url: string, kind: 'server' | 'embedded', drop(): Promise<void> }>}
 */
export async function createDatabase(template, env = process.env) {
  const runId = env.TEST_RUN_ID;
  if (!runId) throw new Error('No test run: the global setup of the e2e project prepares the databases.');
  const name = `${runId}_${process.pid}_${++created}_${template}`;
  if (env.TEST_DATABASE_KIND === 'server') {
    const serverUrl = /** @type {string} */ (env.TEST_SERVER_URL);
    const from = template === 'empty' ? '' : ` TEMPLATE "${runId}_${template}"`;
    await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"${from}`));
    return {
      url: databaseUrl(serverUrl, name),
      kind: 'server',
      drop: once(() =>
        withAdminClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
      ),
    };
  }
  const dataDir = path.join(/** @type {string} */ (env.TEST_RUN_FOLDER), name);
  await cp(path.join(/** @type {string} */ (env.TEST_RUN_FOLDER), 'templates', template), dataDir, {
    recursive: true,
  });
  const embedded = await startEmbeddedPostgres({ dataDir, maxConnections: EMBEDDED_MAX_CONNECTIONS });
  return {
    url: embedded.url,
    kind: 'embedded',
    drop: once(async () => {
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    }),
  };
}

/** @param {() => Promise<unknown>} work */
function once(work) {
  /** @type {Promise<void> | undefined} */
  let done;
  return () => (done ??= work().then(() => undefined));
}

/** @param {string} serverUrl @param {string} name */
function databaseUrl(serverUrl, name) {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * @template T
 * @param {string} serverUrl
 * @param {(client: pg.Client) => Promise<T>} work
 * @returns {Promise<T>}
 */
async function withAdminClient(serverUrl, work) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
