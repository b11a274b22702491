import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Service clients hold roles, like users, and the client-credentials grant gives each service
 * access token a row of its own: the token's `sid`, so a revocation ends it at once on every
 * instance, as a user's session. `client_id` is not a foreign key: clients of SERVICE_CLIENTS
 * live in the environment, not in `service_clients`.
 */
export class ClientRolesAndTokens1770310000000 implements MigrationInterface {
  name = 'ClientRolesAndTokens1770310000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "client_roles" (
        "client_id" varchar(100) NOT NULL,
        "role_id" uuid NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_client_roles" PRIMARY KEY ("client_id", "role_id"),
        CONSTRAINT "FK_client_roles_role" FOREIGN KEY ("role_id") REFERENCES "roles"("id") ON DELETE CASCADE)`);
    await queryRunner.query(`CREATE INDEX "IDX_client_roles_role" ON "client_roles" ("role_id")`);
    await queryRunner.query(`
      CREATE TABLE "client_tokens" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" varchar(100) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "revoked_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "PK_client_tokens" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_client_tokens_expires" ON "client_tokens" ("expires_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "client_tokens"`);
    await queryRunner.query(`DROP TABLE "client_roles"`);
  }
}
