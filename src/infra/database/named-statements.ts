import type { Pool } from 'pg';
import { QueryFailedError, type DataSource } from 'typeorm';

/**
 * Set by `buildDataSourceOptions` on the options of a data source whose statements may be
 * prepared under a name: a PostgreSQL server's, where each pooled connection is its own session
 * (unless `DB_PREPARED_STATEMENTS=false`). Never the embedded database's: every connection to it
 * shares PGlite's one session, so a name one connection prepared would already exist when the next
 * tried to prepare it. A symbol, so that it stays out of what TypeORM hands to `pg`, and survives
 * the spread of the options into Nest's TypeORM module.
 */
export const NAMED_STATEMENTS = Symbol('named statements');

/**
 * Whether the server behind a data source gives each connection its own session, asked once per
 * data source: a `DATABASE_URL` may also point at PGlite served over a socket (another process's
 * embedded database, as the test suite's embedded runs do), which answers every connection from
 * one session and says so in `version()`. Asked through the pool directly, outside TypeORM's
 * logger, so that it is no request's statement; a failure is asked again next time.
 */
const ownSessions = new WeakMap<DataSource, Promise<boolean>>();

function eachConnectionItsOwnSession(dataSource: DataSource, pool: Pool): Promise<boolean> {
  let answer = ownSessions.get(dataSource);
  if (!answer) {
    answer = pool
      .query<{ version: string }>('SELECT version() AS version')
      .then(({ rows }) => !/PGlite/i.test(rows[0]?.version ?? 'PGlite'));
    ownSessions.set(dataSource, answer);
    answer.catch(() => ownSessions.delete(dataSource));
  }
  return answer;
}

/** Distinct statements prepared under a name; beyond them, statements run unnamed as before. */
const MAX_NAMED = 32;
const names = new Map<string, string>();

/**
 * Runs one statement outside any transaction and answers its rows, as `dataSource.query` would
 * (logged through TypeORM's logger, a failure thrown as TypeORM's `QueryFailedError`), but on a
 * PostgreSQL server as a named prepared statement: each pooled connection parses and plans it the
 * first time and then only binds and executes it. For the few statements every sign-in and every
 * refresh sends, whose common table expressions cost the server more to parse and plan than to
 * run (measured in docs/performance.md: 1.8 against 1.0 ms of the server's CPU for the sign-in's
 * two). Only for statements whose text is fixed (a handful of variants at most): each distinct
 * text is a statement the server keeps for each connection.
 *
 * A connection pooler in transaction mode between the service and the server must keep prepared
 * statements per client (PgBouncer 1.21 or later with `max_prepared_statements`; see
 * docs/operations.md).
 */
export async function queryNamed<T>(dataSource: DataSource, text: string, values: unknown[]): Promise<T[]> {
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  const name = await nameOf(dataSource, pool, text);
  if (!name) {
    const runner = dataSource.createQueryRunner();
    try {
      return (await runner.query(text, values, true)).records as T[];
    } finally {
      await runner.release();
    }
  }
  dataSource.logger.logQuery(text, values);
  try {
    return (await pool.query({ name, text, values })).rows as T[];
  } catch (error) {
    dataSource.logger.logQueryError(error as Error, text, values);
    throw new QueryFailedError(text, values, error as Error);
  }
}

async function nameOf(dataSource: DataSource, pool: Pool, text: string): Promise<string | undefined> {
  if (!(dataSource.options as { [NAMED_STATEMENTS]?: boolean })[NAMED_STATEMENTS]) return undefined;
  // Unanswered (the database away): unnamed, where the statement itself then fails as it would.
  if (!(await eachConnectionItsOwnSession(dataSource, pool).catch(() => false))) return undefined;
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `auth_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}
