import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A pending email change belongs to the session that asked for it and can be cancelled from the
 * old address: the cancel link's token is stored as its SHA-256 only, and the asking session is
 * indexed, since every confirmation checks that session is still live.
 */
export class PendingChangeCancel1770200000000 implements MigrationInterface {
  name = 'PendingChangeCancel1770200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "account_change_requests" ADD "cancel_hash" character varying(64)`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_account_change_requests_cancel_hash" ON "account_change_requests" ("cancel_hash")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_account_change_requests_session_id" ON "account_change_requests" ("session_id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_account_change_requests_session_id"`);
    await queryRunner.query(`DROP INDEX "UQ_account_change_requests_cancel_hash"`);
    await queryRunner.query(`ALTER TABLE "account_change_requests" DROP COLUMN "cancel_hash"`);
  }
}
