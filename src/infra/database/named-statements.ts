import type { Pool } from 'pg';
import { QueryFailedError, type DataSource } from 'typeorm';

/**
 * Set by `buildDataSourceOptions` on the options of a data source whose statements may be
 * prepared under a name: a PostgreSQL server's, where each pooled connection is its own session.
 * Never the embedded database's: every connection to it shares PGlite's one session, so a name
 * one connection prepared would already exist when the next tried to prepare it.
 * A symbol, so that it stays out of what TypeORM hands to `pg`, and survives the spread of the
 * options into Nest's TypeORM module.
 */
export const NAMED_STATEMENTS = Symbol('named statements');

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
  const name = nameOf(dataSource, text);
  if (!name) {
    const runner = dataSource.createQueryRunner();
    try {
      return (await runner.query(text, values, true)).records as T[];
    } finally {
      await runner.release();
    }
  }
  dataSource.logger.logQuery(text, values);
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  try {
    return (await pool.query({ name, text, values })).rows as T[];
  } catch (error) {
    dataSource.logger.logQueryError(error as Error, text, values);
    throw new QueryFailedError(text, values, error as Error);
  }
}

function nameOf(dataSource: DataSource, text: string): string | undefined {
  if (!(dataSource.options as { [NAMED_STATEMENTS]?: boolean })[NAMED_STATEMENTS]) return undefined;
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `auth_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}
