import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Passkeys (WebAuthn credentials) and the challenges of their ceremonies. A credential keeps its
 * public key (COSE, as the authenticator gave it), its signature counter, transports and backup
 * state; a challenge is stored as its SHA-256 only, bound to its ceremony (and to the account it
 * names, where it names one), and is deleted when used.
 */
export class Passkeys1770600000000 implements MigrationInterface {
  name = 'Passkeys1770600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "passkeys" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "user_id" uuid NOT NULL,
        "credential_id" character varying(1400) NOT NULL,
        "public_key" bytea NOT NULL,
        "counter" bigint NOT NULL,
        "transports" character varying(255) NOT NULL,
        "device_type" character varying(16) NOT NULL,
        "backed_up" boolean NOT NULL,
        "name" character varying(100) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "last_used_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "PK_passkeys" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_passkeys_credential_id" ON "passkeys" ("credential_id")`);
    await queryRunner.query(`CREATE INDEX "IDX_passkeys_user_id" ON "passkeys" ("user_id")`);
    await queryRunner.query(`
      ALTER TABLE "passkeys" ADD CONSTRAINT "FK_passkeys_user_id"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`
      CREATE TABLE "webauthn_challenges" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "challenge_hash" character varying(64) NOT NULL,
        "ceremony" character varying(16) NOT NULL,
        "user_id" uuid,
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_webauthn_challenges" PRIMARY KEY ("id"))`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_webauthn_challenges_challenge_hash" ON "webauthn_challenges" ("challenge_hash")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_webauthn_challenges_expires_at" ON "webauthn_challenges" ("expires_at")`,
    );
    await queryRunner.query(`
      ALTER TABLE "webauthn_challenges" ADD CONSTRAINT "FK_webauthn_challenges_user_id"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webauthn_challenges"`);
    await queryRunner.query(`DROP TABLE "passkeys"`);
  }
}
