import type { DataSource, EntityManager } from 'typeorm';

/**
 * How long one admin query may run. Admin lists are the heaviest reads the service serves; a
 * bound keeps one slow page or search from holding a pooled connection that sign-ins need.
 * A query cut off by it fails with query_canceled, answered 503 (src/common/error-response.ts).
 */
export const ADMIN_STATEMENT_TIMEOUT_MS = 5_000;

/**
 * Runs `work` in one transaction under the admin statement timeout. SET LOCAL (set_config with
 * `is_local`): the setting ends with the transaction, so the pooled connection goes back unchanged.
 */
export function underAdminStatementTimeout<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  return dataSource.transaction(async (manager) => {
    await manager.query(`SELECT set_config('statement_timeout', $1, true)`, [String(ADMIN_STATEMENT_TIMEOUT_MS)]);
    return work(manager);
  });
}
