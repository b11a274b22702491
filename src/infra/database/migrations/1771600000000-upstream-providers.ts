import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Upstream identity providers and the identities linked from them (contract, "Upstream identity
 * providers and safe account linking"). A provider's client secret is kept sealed under the data
 * key ring; an identity is keyed by (provider, upstream `sub`), never by an address. A flow
 * (`state`) and a link proof are kept as hashes only, single use, with an end. `users` learns
 * whether its password was set by its holder: an account made by an upstream sign-in has none,
 * and the last way to sign in cannot be unlinked.
 */
export class UpstreamProviders1771600000000 implements MigrationInterface {
  name = 'UpstreamProviders1771600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" ADD "password_set" boolean NOT NULL DEFAULT true`);
    await queryRunner.query(`
      CREATE TABLE "upstream_providers" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "slug" varchar(40) NOT NULL,
        "name" varchar(100) NOT NULL,
        "type" varchar(10) NOT NULL,
        "issuer" varchar(2000),
        "client_id" varchar(255) NOT NULL,
        "client_secret_sealed" text NOT NULL,
        "scopes" text[] NOT NULL DEFAULT '{}',
        "trust_email" boolean NOT NULL DEFAULT false,
        "allow_sign_up" boolean NOT NULL DEFAULT true,
        "enabled" boolean NOT NULL DEFAULT true,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_upstream_providers" PRIMARY KEY ("id"),
        CONSTRAINT "UQ_upstream_providers_slug" UNIQUE ("slug"))`);
    await queryRunner.query(`
      CREATE TABLE "upstream_identities" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "user_id" uuid NOT NULL,
        "provider_id" uuid NOT NULL,
        "subject" varchar(255) NOT NULL,
        "email" varchar(320),
        "linked_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "last_used_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "PK_upstream_identities" PRIMARY KEY ("id"),
        CONSTRAINT "UQ_upstream_identities_subject" UNIQUE ("provider_id", "subject"),
        CONSTRAINT "FK_upstream_identities_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE,
        CONSTRAINT "FK_upstream_identities_provider" FOREIGN KEY ("provider_id") REFERENCES "upstream_providers"("id") ON DELETE CASCADE)`);
    await queryRunner.query(`CREATE INDEX "IDX_upstream_identities_user" ON "upstream_identities" ("user_id")`);
    await queryRunner.query(`
      CREATE TABLE "upstream_flows" (
        "state_hash" varchar(64) NOT NULL,
        "binding_hash" varchar(64) NOT NULL,
        "provider_id" uuid NOT NULL,
        "purpose" varchar(10) NOT NULL,
        "user_id" uuid,
        "parameters" jsonb NOT NULL DEFAULT '{}',
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_upstream_flows" PRIMARY KEY ("state_hash"),
        CONSTRAINT "FK_upstream_flows_provider" FOREIGN KEY ("provider_id") REFERENCES "upstream_providers"("id") ON DELETE CASCADE,
        CONSTRAINT "FK_upstream_flows_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE)`);
    await queryRunner.query(`CREATE INDEX "IDX_upstream_flows_expires" ON "upstream_flows" ("expires_at")`);
    await queryRunner.query(`
      CREATE TABLE "upstream_link_proofs" (
        "token_hash" varchar(64) NOT NULL,
        "user_id" uuid NOT NULL,
        "provider_id" uuid NOT NULL,
        "subject" varchar(255) NOT NULL,
        "email" varchar(320),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_upstream_link_proofs" PRIMARY KEY ("token_hash"),
        CONSTRAINT "FK_upstream_link_proofs_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE,
        CONSTRAINT "FK_upstream_link_proofs_provider" FOREIGN KEY ("provider_id") REFERENCES "upstream_providers"("id") ON DELETE CASCADE)`);
    await queryRunner.query(`CREATE INDEX "IDX_upstream_link_proofs_expires" ON "upstream_link_proofs" ("expires_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "upstream_link_proofs"`);
    await queryRunner.query(`DROP TABLE "upstream_flows"`);
    await queryRunner.query(`DROP TABLE "upstream_identities"`);
    await queryRunner.query(`DROP TABLE "upstream_providers"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "password_set"`);
  }
}
