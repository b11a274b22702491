import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A session's `last_used_at` now starts at its sign-in. Sessions never refreshed since carried
 * none: their last use was their sign-in.
 */
export class SessionLastUsed1771200000000 implements MigrationInterface {
  name = 'SessionLastUsed1771200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE "sessions" SET "last_used_at" = "created_at" WHERE "last_used_at" IS NULL`);
  }

  async down(): Promise<void> {
    // Nothing to undo: the filled times are true.
  }
}
