import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * send-otp's per-address cap counts mobile-change codes too, so every send-otp looks up the
 * change requests of one client address in the last hour: indexed like otp_codes.
 */
export class AccountChangeClientIndex1764390000000 implements MigrationInterface {
  name = 'AccountChangeClientIndex1764390000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_account_change_requests_client_created" ON "account_change_requests" ("client_ip", "created_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_account_change_requests_client_created"`);
  }
}
