import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Failed password logins per account (or unknown identifier), for the account lockout. */
export class LoginLockout1764100000000 implements MigrationInterface {
  name = 'LoginLockout1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "login_failures" (
        "subject" character varying(100) NOT NULL,
        "failures" integer NOT NULL DEFAULT '0',
        "locked_until" TIMESTAMP WITH TIME ZONE,
        "last_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "PK_login_failures" PRIMARY KEY ("subject"))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "login_failures"`);
  }
}
