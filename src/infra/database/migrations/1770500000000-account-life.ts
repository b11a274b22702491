import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The account's life: when its email was verified, whether (and until when, and why) it is
 * disabled, the verification links (their SHA-256 only) and the email sign-in codes (keyed hashes).
 * Accounts that exist when this runs were created under the old rule, which asked for no proof of
 * the address: they count as verified.
 */
export class AccountLife1770500000000 implements MigrationInterface {
  name = 'AccountLife1770500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" ADD "email_verified_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "users" ADD "disabled_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "users" ADD "disabled_until" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "users" ADD "disabled_reason" character varying(255)`);
    await queryRunner.query(`UPDATE "users" SET "email_verified_at" = "created_at"`);
    await queryRunner.query(`
      CREATE TABLE "email_verification_tokens" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "user_id" uuid NOT NULL,
        "email" character varying(255) NOT NULL,
        "token_hash" character varying(64) NOT NULL,
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "used_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_email_verification_tokens" PRIMARY KEY ("id"))`);
    await queryRunner.query(
      `CREATE INDEX "IDX_email_verification_tokens_user_id" ON "email_verification_tokens" ("user_id")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_email_verification_tokens_token_hash" ON "email_verification_tokens" ("token_hash")`,
    );
    await queryRunner.query(`
      ALTER TABLE "email_verification_tokens" ADD CONSTRAINT "FK_email_verification_tokens_user_id"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`
      CREATE TABLE "email_codes" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "email" character varying(255) NOT NULL,
        "user_id" uuid,
        "code_hash" character varying(64) NOT NULL,
        "attempts" integer NOT NULL DEFAULT '0',
        "client_ip" character varying(64),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "ended_at" TIMESTAMP WITH TIME ZONE,
        "end_reason" character varying(16),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_email_codes" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_email_codes_email_created" ON "email_codes" ("email", "created_at")`);
    await queryRunner.query(`
      ALTER TABLE "email_codes" ADD CONSTRAINT "FK_email_codes_user_id"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "email_codes"`);
    await queryRunner.query(`DROP TABLE "email_verification_tokens"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "disabled_reason"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "disabled_until"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "disabled_at"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "email_verified_at"`);
  }
}
