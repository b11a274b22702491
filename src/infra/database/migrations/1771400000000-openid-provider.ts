import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OpenID provider on the service's own sessions (decision 057).
 * - `sessions` learns which client a session was issued to (`client_id`, its `scope` and token
 *   `audience`) and the browser sign-in it came from (`parent_session_id`): ending the parent
 *   ends every client's session under it.
 * - `provider_signing_keys`: the ID-token keys, private halves sealed, one current key per
 *   algorithm, retired keys kept for the JWKS until their tokens have expired.
 * - `provider_browser_sessions`: the single sign-on cookie (its SHA-256) bound to a session.
 * - `provider_authorization_codes`: codes by their SHA-256, single use, bound to what they were
 *   issued for; the session a code's exchange made, so a replay ends it.
 * - `provider_consents`: the scopes a person allowed a client.
 */
export class OpenidProvider1771400000000 implements MigrationInterface {
  name = 'OpenidProvider1771400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "sessions" ADD "client_id" varchar(100), ADD "parent_session_id" uuid,
         ADD "scope" varchar(512), ADD "audience" varchar(255)`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_sessions_parent_session_id" ON "sessions" ("parent_session_id")`);
    await queryRunner.query(`
      CREATE TABLE "provider_signing_keys" (
        "kid" varchar(64) NOT NULL,
        "algorithm" varchar(16) NOT NULL,
        "private_key_sealed" text NOT NULL,
        "public_key_pem" text NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "retired_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "PK_provider_signing_keys" PRIMARY KEY ("kid"))`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_provider_signing_keys_current" ON "provider_signing_keys" ("algorithm") WHERE "retired_at" IS NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE "provider_browser_sessions" (
        "token_hash" varchar(64) NOT NULL,
        "session_id" uuid NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_provider_browser_sessions" PRIMARY KEY ("token_hash"),
        CONSTRAINT "FK_provider_browser_sessions_session" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE)`);
    await queryRunner.query(
      `CREATE INDEX "IDX_provider_browser_sessions_session" ON "provider_browser_sessions" ("session_id")`,
    );
    await queryRunner.query(`
      CREATE TABLE "provider_authorization_codes" (
        "code_hash" varchar(64) NOT NULL,
        "client_id" varchar(100) NOT NULL,
        "redirect_uri" text NOT NULL,
        "code_challenge" varchar(128) NOT NULL,
        "nonce" varchar(512),
        "scope" varchar(512) NOT NULL,
        "resource" varchar(255),
        "session_id" uuid NOT NULL,
        "user_id" uuid NOT NULL,
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "used_at" TIMESTAMP WITH TIME ZONE,
        "issued_session_id" uuid,
        "replayed_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_provider_authorization_codes" PRIMARY KEY ("code_hash"),
        CONSTRAINT "FK_provider_authorization_codes_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE)`);
    await queryRunner.query(
      `CREATE INDEX "IDX_provider_authorization_codes_expires" ON "provider_authorization_codes" ("expires_at")`,
    );
    await queryRunner.query(`
      CREATE TABLE "provider_consents" (
        "user_id" uuid NOT NULL,
        "client_id" varchar(100) NOT NULL,
        "scope" varchar(512) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_provider_consents" PRIMARY KEY ("user_id", "client_id"),
        CONSTRAINT "FK_provider_consents_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "provider_consents"`);
    await queryRunner.query(`DROP TABLE "provider_authorization_codes"`);
    await queryRunner.query(`DROP TABLE "provider_browser_sessions"`);
    await queryRunner.query(`DROP TABLE "provider_signing_keys"`);
    await queryRunner.query(`DROP INDEX "IDX_sessions_parent_session_id"`);
    await queryRunner.query(
      `ALTER TABLE "sessions" DROP COLUMN "audience", DROP COLUMN "scope", DROP COLUMN "parent_session_id", DROP COLUMN "client_id"`,
    );
  }
}
