import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes that let the admin users list scale: the page is read in (created_at, id) order straight
 * from an index, and a search matches trigrams (pg_trgm, GIN) instead of scanning every row.
 * pg_trgm is a trusted extension (PostgreSQL 13+), so the database owner may create it; the
 * embedded database loads it at start.
 */
export class AdminListIndexes1764340000000 implements MigrationInterface {
  name = 'AdminListIndexes1764340000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await queryRunner.query(`CREATE INDEX "IDX_users_created_at_id" ON "users" ("created_at", "id")`);
    await queryRunner.query(`CREATE INDEX "IDX_users_email_trgm" ON "users" USING gin (lower("email") gin_trgm_ops)`);
    await queryRunner.query(`CREATE INDEX "IDX_users_name_trgm" ON "users" USING gin ("name" gin_trgm_ops)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_users_name_trgm"`);
    await queryRunner.query(`DROP INDEX "IDX_users_email_trgm"`);
    await queryRunner.query(`DROP INDEX "IDX_users_created_at_id"`);
    // pg_trgm stays: other schemas of the database may use it, and keeping it is harmless.
  }
}
