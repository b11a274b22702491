import type { MigrationInterface, QueryRunner } from 'typeorm';

/** One-time passwords, stored as keyed hashes only. */
export class OtpCodes1764000000000 implements MigrationInterface {
  name = 'OtpCodes1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "otp_codes" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "purpose" character varying(16) NOT NULL,
        "mobile" character varying(16) NOT NULL,
        "user_id" uuid,
        "temp_token_jti" character varying(64),
        "code_hash" character varying(64) NOT NULL,
        "attempts" integer NOT NULL DEFAULT '0',
        "client_ip" character varying(64),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "ended_at" TIMESTAMP WITH TIME ZONE,
        "end_reason" character varying(16),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_otp_codes" PRIMARY KEY ("id"))`);
    await queryRunner.query(
      `CREATE INDEX "IDX_otp_codes_mobile_purpose_created" ON "otp_codes" ("mobile", "purpose", "created_at")`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_otp_codes_temp_token_jti" ON "otp_codes" ("temp_token_jti")`);
    await queryRunner.query(
      `CREATE INDEX "IDX_otp_codes_client_ip_created" ON "otp_codes" ("client_ip", "created_at")`,
    );
    await queryRunner.query(`
      ALTER TABLE "otp_codes" ADD CONSTRAINT "FK_otp_codes_user_id"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "otp_codes"`);
  }
}
