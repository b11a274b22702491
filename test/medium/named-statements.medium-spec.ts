import { randomUUID } from 'node:crypto';
import { DataSource, QueryFailedError } from 'typeorm';
import { queryNamed } from '../../src/infra/database/named-statements.js';
import { fileDatabase, testDataSource } from '../support/test-database.js';

/**
 * The hot statements of sign-in and refresh are prepared under a name on a PostgreSQL server (one
 * session per connection), and never on PGlite, whose connections all share one session: the data
 * source is marked as the service marks one on a `DATABASE_URL`, and on the embedded runs (PGlite
 * served over a socket) `queryNamed` must recognise the server and send them unnamed. One
 * connection, so that what the statement left behind is visible to the next statement of the test.
 */
describe('statements prepared under a name', () => {
  let db: DataSource;
  let kind: 'server' | 'embedded';
  beforeAll(async () => {
    const database = await fileDatabase();
    kind = database.kind;
    db = testDataSource(database.url, 1);
    await db.initialize();
  });
  afterAll(async () => {
    if (db?.isInitialized) await db.destroy();
  });

  /** The names the connection holds for `text`. */
  async function preparedAs(text: string): Promise<string[]> {
    const rows: { name: string }[] = await db.query(`SELECT name FROM pg_prepared_statements WHERE statement = $1`, [
      text,
    ]);
    return rows.map((row) => row.name);
  }

  it('prepares a statement once per connection on a server, and runs it again without preparing it anew', async () => {
    // A text no other test sends: a unique literal in it.
    const text = `SELECT $1::int + 1 AS next, '${randomUUID()}' AS tag`;
    const answers = [];
    for (const value of [1, 2, 3]) answers.push(await queryNamed<{ next: number }>(db, text, [value]));
    expect(answers.map(([row]) => row!.next)).toEqual([2, 3, 4]);
    const names = await preparedAs(text);
    if (kind === 'server') {
      expect(names).toHaveLength(1);
      expect(names[0]).toMatch(/^auth_\d+$/);
    } else {
      expect(names).toEqual([]);
    }
  });

  it('runs on every connection of a pool at once, each preparing its own or none', async () => {
    const pooled = testDataSource((await fileDatabase()).url, 3);
    await pooled.initialize();
    try {
      const text = `SELECT $1::int * 2 AS twice, pg_sleep(0.02), '${randomUUID()}' AS tag`;
      for (let round = 0; round < 3; round += 1) {
        const answers = await Promise.all(
          [1, 2, 3, 4, 5, 6].map((value) => queryNamed<{ twice: number }>(pooled, text, [value])),
        );
        expect(answers.map(([row]) => row!.twice)).toEqual([2, 4, 6, 8, 10, 12]);
      }
    } finally {
      await pooled.destroy();
    }
  });

  it('gives another text another name', async () => {
    const first = `SELECT 1 AS one, '${randomUUID()}' AS tag`;
    const second = `SELECT 2 AS two, '${randomUUID()}' AS tag`;
    await queryNamed(db, first, []);
    await queryNamed(db, second, []);
    const [a, b] = [await preparedAs(first), await preparedAs(second)];
    if (kind === 'server') {
      expect(a).toHaveLength(1);
      expect(b).toHaveLength(1);
      expect(a[0]).not.toBe(b[0]);
    } else {
      expect([...a, ...b]).toEqual([]);
    }
  });

  it("answers the rows of an UPDATE … RETURNING, not TypeORM's [rows, count]", async () => {
    const name = `named-${randomUUID()}`;
    await db.query(`INSERT INTO roles (name) VALUES ($1)`, [name]);
    const rows = await queryNamed<{ name: string }>(
      db,
      `UPDATE roles SET description = $2 WHERE name = $1 RETURNING name`,
      [name, 'renamed'],
    );
    expect(rows).toEqual([{ name }]);
    const none = await queryNamed(db, `UPDATE roles SET description = $2 WHERE name = $1 RETURNING name`, [
      `absent-${randomUUID()}`,
      'renamed',
    ]);
    expect(none).toEqual([]);
  });

  it("throws TypeORM's QueryFailedError with the server's code, every time, and the connection goes on", async () => {
    const text = `SELECT 1 / $1::int AS quotient`;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const failure = await queryNamed(db, text, [0]).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(QueryFailedError);
      expect((failure as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe('22012');
    }
    expect(await queryNamed(db, text, [2])).toEqual([{ quotient: 0 }]);
  });
});
