import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/infra/database/embedded-postgres.js';

describe('the embedded database under concurrent connections', () => {
  it('keeps parameterised queries and transactions of many connections apart', async () => {
    const embedded = await startEmbeddedPostgres({ maxConnections: 20 });
    const pool = new pg.Pool({ connectionString: embedded.url, max: 8 });
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
            if (rows[0].sum !== i + 1) failures.push(`wrong sum for ${i}`);
          }
        } catch (error) {
          failures.push((error as Error).message);
        }
      };
      for (let round = 0; round < 20; round++)
        await Promise.all(Array.from({ length: 12 }, (_, i) => work(round * 12 + i)));
      expect(failures).toEqual([]);
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM probe');
      expect(rows[0].n).toBe(80);
    } finally {
      await pool.end();
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
