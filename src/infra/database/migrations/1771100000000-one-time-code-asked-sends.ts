import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many times a code's row was texted on request (`POST /api/auth/otp/send-2fa`): a
 * second-factor challenge that offers an app or a passkey sends no SMS until asked, and one temp
 * token may ask at most three times. The row keeps its attempts and its end across each send.
 */
export class OneTimeCodeAskedSends1771100000000 implements MigrationInterface {
  name = 'OneTimeCodeAskedSends1771100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "one_time_codes" ADD COLUMN "asked_sends" integer NOT NULL DEFAULT 0`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "one_time_codes" DROP COLUMN "asked_sends"`);
  }
}
