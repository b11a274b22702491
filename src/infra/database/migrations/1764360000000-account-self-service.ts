import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The account holder's side: when a session was last refreshed, the authenticator app (its
 * secret encrypted, the last time step used so a code is accepted once), single-use recovery
 * codes (hashes only), and pending email or mobile changes (the link token or SMS code as a hash).
 */
export class AccountSelfService1764360000000 implements MigrationInterface {
  name = 'AccountSelfService1764360000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "sessions" ADD "last_used_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`
      CREATE TABLE "totp_authenticators" (
        "user_id" uuid NOT NULL,
        "secret_ciphertext" character varying(255) NOT NULL,
        "confirmed_at" TIMESTAMP WITH TIME ZONE,
        "last_used_step" integer,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_totp_authenticators" PRIMARY KEY ("user_id"))`);
    await queryRunner.query(`
      ALTER TABLE "totp_authenticators" ADD CONSTRAINT "FK_totp_authenticators_user_id"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`
      CREATE TABLE "recovery_codes" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "user_id" uuid NOT NULL,
        "code_hash" character varying(64) NOT NULL,
        "used_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_recovery_codes" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_recovery_codes_user_id" ON "recovery_codes" ("user_id")`);
    await queryRunner.query(`
      ALTER TABLE "recovery_codes" ADD CONSTRAINT "FK_recovery_codes_user_id"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`
      CREATE TABLE "account_change_requests" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "user_id" uuid NOT NULL,
        "kind" character varying(16) NOT NULL,
        "new_value" character varying(255) NOT NULL,
        "secret_hash" character varying(64) NOT NULL,
        "attempts" integer NOT NULL DEFAULT '0',
        "session_id" uuid,
        "client_ip" character varying(64),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "ended_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_account_change_requests" PRIMARY KEY ("id"))`);
    await queryRunner.query(
      `CREATE INDEX "IDX_account_change_requests_user_kind" ON "account_change_requests" ("user_id", "kind")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_account_change_requests_value_created" ON "account_change_requests" ("new_value", "created_at")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_account_change_requests_secret_hash" ON "account_change_requests" ("secret_hash")`,
    );
    await queryRunner.query(`
      ALTER TABLE "account_change_requests" ADD CONSTRAINT "FK_account_change_requests_user_id"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "account_change_requests"`);
    await queryRunner.query(`DROP TABLE "recovery_codes"`);
    await queryRunner.query(`DROP TABLE "totp_authenticators"`);
    await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "last_used_at"`);
  }
}
