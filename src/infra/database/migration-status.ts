import type { DataSource } from 'typeorm';

/** The names of the migrations this database has applied (none before the first). */
export async function appliedMigrations(dataSource: DataSource): Promise<Set<string>> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    if (!(await queryRunner.hasTable('migrations'))) return new Set();
    const rows: { name: string }[] = await queryRunner.query(`SELECT name FROM migrations`);
    return new Set(rows.map((row) => row.name));
  } finally {
    await queryRunner.release();
  }
}
