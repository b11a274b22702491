import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every one-time code in one table with a purpose column: the SMS sign-in, second-factor and
 * re-authentication codes of `otp_codes`, the sign-in codes of `email_codes`, and the codes of
 * pending mobile changes, which lived in `account_change_requests` beside the change. The
 * pending change stays there (its new value, session, expiry, an email change's link and cancel
 * hashes); only its code moves. The rows keep their ids, hashes, attempts and ends, so codes in
 * flight still answer as before, except a mobile change's: its code was hashed under a key of its
 * own, so a live one is ended as replaced and the holder asks for a new code.
 */
export class OneTimeCodes1770800000000 implements MigrationInterface {
  name = 'OneTimeCodes1770800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "one_time_codes" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "purpose" character varying(32) NOT NULL,
        "recipient" character varying(255),
        "user_id" uuid,
        "reference" character varying(64),
        "code_hash" character varying(64) NOT NULL,
        "attempts" integer NOT NULL DEFAULT 0,
        "client_ip" character varying(64),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "ended_at" TIMESTAMP WITH TIME ZONE,
        "end_reason" character varying(16),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_one_time_codes" PRIMARY KEY ("id"))`);
    await queryRunner.query(`
      ALTER TABLE "one_time_codes" ADD CONSTRAINT "FK_one_time_codes_user_id"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`
      INSERT INTO "one_time_codes" ("id", "purpose", "recipient", "user_id", "reference", "code_hash", "attempts",
                                    "client_ip", "expires_at", "ended_at", "end_reason", "created_at")
      SELECT "id", CASE "purpose" WHEN 'login' THEN 'sms_sign_in' WHEN '2fa' THEN 'second_factor' ELSE 'reauthentication' END,
             NULLIF("mobile", ''), "user_id", "temp_token_jti", "code_hash", "attempts",
             "client_ip", "expires_at", "ended_at", CASE WHEN "end_reason" = 'undelivered' THEN 'replaced' ELSE "end_reason" END, "created_at"
        FROM "otp_codes"`);
    await queryRunner.query(`
      INSERT INTO "one_time_codes" ("id", "purpose", "recipient", "user_id", "code_hash", "attempts",
                                    "client_ip", "expires_at", "ended_at", "end_reason", "created_at")
      SELECT "id", 'email_sign_in', "email", "user_id", "code_hash", "attempts",
             "client_ip", "expires_at", "ended_at", "end_reason", "created_at"
        FROM "email_codes"`);
    await queryRunner.query(`
      INSERT INTO "one_time_codes" ("purpose", "recipient", "user_id", "reference", "code_hash", "attempts",
                                    "client_ip", "expires_at", "ended_at", "end_reason", "created_at")
      SELECT 'mobile_change', "new_value", "user_id", "id"::text, "secret_hash", "attempts",
             "client_ip", "expires_at", COALESCE("ended_at", now()),
             CASE WHEN "attempts" >= 3 THEN 'burned' ELSE 'replaced' END, "created_at"
        FROM "account_change_requests" WHERE "kind" = 'mobile'`);
    await queryRunner.query(
      `CREATE INDEX "IDX_one_time_codes_recipient_purpose_created" ON "one_time_codes" ("recipient", "purpose", "created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_one_time_codes_client_ip_created" ON "one_time_codes" ("client_ip", "created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_one_time_codes_user_purpose_created" ON "one_time_codes" ("user_id", "purpose", "created_at")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_one_time_codes_purpose_reference" ON "one_time_codes" ("purpose", "reference")`,
    );

    // The pending change keeps what is not a code; its per-number indexes served only the code limits.
    await queryRunner.query(`ALTER TABLE "account_change_requests" ALTER COLUMN "secret_hash" DROP NOT NULL`);
    await queryRunner.query(`UPDATE "account_change_requests" SET "secret_hash" = NULL WHERE "kind" = 'mobile'`);
    await queryRunner.query(`ALTER TABLE "account_change_requests" DROP COLUMN "attempts"`);
    await queryRunner.query(`DROP INDEX "IDX_account_change_requests_value_created"`);
    await queryRunner.query(`DROP INDEX "IDX_account_change_requests_client_created"`);
    await queryRunner.query(`DROP TABLE "otp_codes"`);
    await queryRunner.query(`DROP TABLE "email_codes"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "email_codes" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "email" character varying(255) NOT NULL,
        "user_id" uuid,
        "code_hash" character varying(64) NOT NULL,
        "attempts" integer NOT NULL DEFAULT 0,
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
    await queryRunner.query(`
      CREATE TABLE "otp_codes" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "purpose" character varying(16) NOT NULL,
        "mobile" character varying(16) NOT NULL,
        "user_id" uuid,
        "temp_token_jti" character varying(64),
        "code_hash" character varying(64) NOT NULL,
        "attempts" integer NOT NULL DEFAULT 0,
        "client_ip" character varying(64),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "ended_at" TIMESTAMP WITH TIME ZONE,
        "end_reason" character varying(16),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_otp_codes" PRIMARY KEY ("id"))`);
    await queryRunner.query(
      `CREATE INDEX "IDX_otp_codes_mobile_purpose_created" ON "otp_codes" ("mobile", "purpose", "created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_otp_codes_client_ip_created" ON "otp_codes" ("client_ip", "created_at")`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_otp_codes_temp_token_jti" ON "otp_codes" ("temp_token_jti")`);
    await queryRunner.query(`
      ALTER TABLE "otp_codes" ADD CONSTRAINT "FK_otp_codes_user_id"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`
      INSERT INTO "otp_codes" ("id", "purpose", "mobile", "user_id", "temp_token_jti", "code_hash", "attempts",
                               "client_ip", "expires_at", "ended_at", "end_reason", "created_at")
      SELECT "id", CASE "purpose" WHEN 'sms_sign_in' THEN 'login' WHEN 'second_factor' THEN '2fa' ELSE 'reauth' END,
             COALESCE("recipient", ''), "user_id", "reference", "code_hash", "attempts",
             "client_ip", "expires_at", "ended_at", "end_reason", "created_at"
        FROM "one_time_codes" WHERE "purpose" IN ('sms_sign_in', 'second_factor', 'reauthentication')`);
    await queryRunner.query(`
      INSERT INTO "email_codes" ("id", "email", "user_id", "code_hash", "attempts", "client_ip", "expires_at",
                                 "ended_at", "end_reason", "created_at")
      SELECT "id", "recipient", "user_id", "code_hash", "attempts", "client_ip", "expires_at",
             "ended_at", "end_reason", "created_at"
        FROM "one_time_codes" WHERE "purpose" = 'email_sign_in'`);
    await queryRunner.query(`ALTER TABLE "account_change_requests" ADD "attempts" integer NOT NULL DEFAULT 0`);
    // A mobile change's code goes back beside it; a change without one can no longer be proved.
    await queryRunner.query(`
      UPDATE "account_change_requests" AS "change"
         SET "secret_hash" = "code"."code_hash", "attempts" = "code"."attempts"
        FROM "one_time_codes" AS "code"
       WHERE "code"."purpose" = 'mobile_change' AND "code"."reference" = "change"."id"::text`);
    await queryRunner.query(
      `UPDATE "account_change_requests" SET "secret_hash" = md5(random()::text) || md5(random()::text), "ended_at" = COALESCE("ended_at", now()) WHERE "secret_hash" IS NULL`,
    );
    await queryRunner.query(`ALTER TABLE "account_change_requests" ALTER COLUMN "secret_hash" SET NOT NULL`);
    await queryRunner.query(
      `CREATE INDEX "IDX_account_change_requests_value_created" ON "account_change_requests" ("new_value", "created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_account_change_requests_client_created" ON "account_change_requests" ("client_ip", "created_at")`,
    );
    await queryRunner.query(`DROP TABLE "one_time_codes"`);
  }
}
