import type { EntityManager } from 'typeorm';

/**
 * The seed's own statements (its lock, and what it reads to decide); the rows it writes go through
 * each table's owner. Each takes the manager of the seed's transaction (or the data source's own),
 * so the seed can run inside the application or beside it (the CLI, a test set-up).
 */
export class SeedRepository {
  async countRoles(manager: EntityManager): Promise<number> {
    const [{ count }]: { count: number }[] = await manager.query(`SELECT count(*)::int AS count FROM roles`);
    return count;
  }

  /** Serialises concurrent seeders (two instances starting on one database) until the transaction ends. */
  async lock(manager: EntityManager, key: number): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock($1)`, [key]);
  }

  async emailTaken(manager: EntityManager, email: string): Promise<boolean> {
    const existing: unknown[] = await manager.query(`SELECT 1 FROM users WHERE email = $1`, [email]);
    return existing.length > 0;
  }
}
