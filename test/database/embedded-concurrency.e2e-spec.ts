import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres.js';

/**
 * Twelve callers at a time on a pool of eight connections, twenty rounds: two in three run a
 * parameterised query (Parse, Bind, Describe, Execute, Sync), one in three a transaction. Returns
 * what went wrong, and the rows the transactions left.
 */
async function concurrentWork(url: string): Promise<{ failures: string[]; inserted: number }> {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  try {
    await pool.query('CREATE TABLE probe (id serial PRIMARY KEY, v int NOT NULL)');
    const failures: string[] = [];
    const work = async (i: number) => {
      try {
        if (i % 3 === 0) {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            await client.query('INSERT INTO probe (v) VALUES ($1)', [i]);
            await client.query('SELECT * FROM probe WHERE v = $1 FOR UPDATE', [i]);
            await client.query('COMMIT');
          } finally {
            client.release();
          }
        } else {
          const { rows } = await pool.query('SELECT $1::int + $2::int AS sum', [i, 1]);
          if (rows[0]?.sum !== i + 1) failures.push(`wrong sum for ${i}`);
        }
      } catch (error) {
        failures.push((error as Error).message);
      }
    };
    for (let round = 0; round < 20; round++)
      await Promise.all(Array.from({ length: 12 }, (_, i) => work(round * 12 + i)));
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM probe');
    return { failures, inserted: rows[0].n };
  } finally {
    await pool.end();
  }
}

describe('the embedded database under concurrent connections', () => {
  // Why src/database/pglite-socket-server.ts exists. When a newer pglite-socket makes this fail,
  // it keeps connections apart on its own: drop our wrapper.
  it("mixes up the connections' queries when pglite-socket's server runs alone", async () => {
    const db = await PGlite.create();
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 20 });
    await server.start();
    try {
      const { failures } = await concurrentWork(`postgres://postgres@${server.getServerConn()}/postgres`);
      expect(failures).toEqual(expect.arrayContaining([expect.stringMatching(/^wrong sum for \d+$/)]));
    } finally {
      await server.stop();
      await db.close();
    }
  });

  it('keeps parameterised queries and transactions of many connections apart', async () => {
    const embedded = await startEmbeddedPostgres({ maxConnections: 20 });
    try {
      const { failures, inserted } = await concurrentWork(embedded.url);
      expect(failures).toEqual([]);
      expect(inserted).toBe(80);
    } finally {
      await embedded.stop();
    }
  });

  it('keeps serving after a failing statement', async () => {
    const embedded = await startEmbeddedPostgres({ maxConnections: 4 });
    const pool = new pg.Pool({ connectionString: embedded.url, max: 3 });
    try {
      const results = await Promise.allSettled([
        pool.query('SELECT * FROM no_such_table WHERE id = $1', [1]),
        pool.query('SELECT $1::int AS one', [1]),
        pool.query('SELECT 1/0'),
        pool.query('SELECT $1::text AS two', ['2']),
      ]);
      expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled']);
      expect((await pool.query('SELECT 3 AS three')).rows[0].three).toBe(3);
    } finally {
      await pool.end();
      await embedded.stop();
    }
  });
});
