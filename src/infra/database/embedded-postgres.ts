import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Logger } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { extractClusterTemplate, loadClusterTemplate } from './embedded-template.js';
import { createPGliteSocketServer } from './pglite-socket-server.js';

/** Memory settings of the embedded server (written to its postgresql.conf at every start). */
const EMBEDDED_POSTGRESQL_CONF = ['shared_buffers = 32MB', 'maintenance_work_mem = 16MB', 'wal_buffers = 1MB'];

/** How the cluster came to be: found in the data folder, loaded from the shipped template, or made by initdb. */
export type EmbeddedCluster = 'existing' | 'template' | 'initdb';

export interface EmbeddedPostgres {
  /** A `postgres://` URL the ordinary `pg` driver connects to. */
  readonly url: string;
  readonly cluster: EmbeddedCluster;
  stop(): Promise<void>;
}

/**
 * Starts PGlite on `dataDir` (or in memory) and serves it on a loopback port, so the service
 * keeps one driver (`pg`), one dialect and one set of migrations for both databases.
 *
 * PGlite runs one query at a time: the socket server queues connections' statements, and an
 * open transaction holds the queue until it ends. Code must therefore never query outside a
 * transaction's own manager while that transaction is open, or it waits on itself.
 */
export async function startEmbeddedPostgres(options: {
  dataDir?: string;
  maxConnections: number;
}): Promise<EmbeddedPostgres> {
  const logger = new Logger('EmbeddedPostgres');
  const release = options.dataDir ? await lockDataDir(options.dataDir) : async () => undefined;
  try {
    const pgdata = options.dataDir ? path.join(options.dataDir, 'pgdata') : undefined;
    const { cluster, loadDataDir } = await prepareCluster(pgdata);
    if (cluster === 'initdb')
      logger.warn(
        "New cluster by PGlite's initdb (no template for this PGlite release, or the folder already holds files): it needs about 1 GB of memory while it runs",
      );
    const db = await PGlite.create({
      dataDir: pgdata,
      loadDataDir,
      // The admin search's trigram indexes (a migration creates the extension, as on a server).
      extensions: { pg_trgm },
      // PGlite's WASM heap grows to hold shared_buffers and never shrinks: its default 128 MB
      // was a third of a restarted service's memory. The database of one service is small, and
      // its files stay in the operating system's page cache anyway.
      postgresqlconf: EMBEDDED_POSTGRESQL_CONF,
    });
    const server = createPGliteSocketServer({
      db,
      host: '127.0.0.1',
      port: 0,
      maxConnections: options.maxConnections,
    });
    await server.start();
    const url = `postgres://postgres@${server.getServerConn()}/postgres`;
    const origin =
      cluster === 'existing' ? '' : `, new cluster from ${cluster === 'template' ? 'the template' : 'initdb'}`;
    logger.log(`Embedded PostgreSQL ready (${options.dataDir ? `data in ${options.dataDir}` : 'in memory'}${origin})`);
    let stopped = false;
    return {
      url,
      cluster,
      async stop() {
        if (stopped) return;
        stopped = true;
        await server.stop();
        await db.close();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

/**
 * A new cluster comes from the shipped template where there is one for this PGlite release:
 * unpacked into an empty data folder, or handed to PGlite for a cluster in memory.
 */
async function prepareCluster(pgdata: string | undefined): Promise<{ cluster: EmbeddedCluster; loadDataDir?: Blob }> {
  if (pgdata === undefined) {
    const loadDataDir = await loadClusterTemplate();
    return loadDataDir ? { cluster: 'template', loadDataDir } : { cluster: 'initdb' };
  }
  if (existsSync(path.join(pgdata, 'PG_VERSION'))) return { cluster: 'existing' };
  // Anything else already there is left to PGlite, as before there was a template.
  if (existsSync(pgdata)) return { cluster: 'initdb' };
  return { cluster: (await extractClusterTemplate(pgdata)) ? 'template' : 'initdb' };
}

/**
 * PGlite's files must only ever be opened by one process; a second one would corrupt them.
 * A lock file holding the owner's pid refuses a second opener and survives a crash safely.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'embedded-postgres.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `The embedded database in ${dataDir} is in use by process ${owner}. Stop it first, ` +
            'or set DATABASE_URL to share a PostgreSQL server between processes.',
          { cause: error },
        );
      }
      await rm(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock the embedded database in ${dataDir}.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
