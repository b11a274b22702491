import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One registry of clients (the OpenID provider's contract, "Clients: one registry"): the service
 * clients of the token endpoint and the applications that sign people in are one kind of record.
 * `service_clients` gains what an application needs (name, type, redirect URIs, grant types, ...);
 * a public client has no secret. The clients made before (by `create-client`) keep
 * `client_credentials`, with `refresh_token` as the token endpoint already let them rotate.
 * The four `clients.*` permissions are seeded into a database seeded before (one with the `admin`
 * role) and given to `admin`; an empty database gets them from the seed, as every system permission.
 */
export class ClientRegistry1771300000000 implements MigrationInterface {
  name = 'ClientRegistry1771300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE "service_clients"
        ADD "name" character varying(100),
        ADD "type" character varying(12) NOT NULL DEFAULT 'confidential',
        ADD "redirect_uris" text[] NOT NULL DEFAULT '{}',
        ADD "post_logout_redirect_uris" text[] NOT NULL DEFAULT '{}',
        ADD "grant_types" text[] NOT NULL DEFAULT '{authorization_code,refresh_token}',
        ADD "first_party" boolean NOT NULL DEFAULT false,
        ADD "backchannel_logout_uri" character varying(2000),
        ADD "dynamically_registered" boolean NOT NULL DEFAULT false,
        ADD "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()`);
    await queryRunner.query(
      `UPDATE "service_clients" SET "name" = "client_id", "grant_types" = '{client_credentials,refresh_token}'`,
    );
    await queryRunner.query(`ALTER TABLE "service_clients" ALTER COLUMN "name" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "service_clients" ALTER COLUMN "secret_hash" DROP NOT NULL`);

    for (const action of ['view', 'create', 'edit', 'delete']) {
      await queryRunner.query(
        `INSERT INTO "permissions" ("name", "display_name", "group_name", "description", "is_system")
         SELECT $1, $2, 'Clients', $3, true WHERE EXISTS (SELECT 1 FROM "roles" WHERE "name" = 'admin')
         ON CONFLICT DO NOTHING`,
        [
          `clients.${action}`,
          `${action.charAt(0).toUpperCase()}${action.slice(1)} Clients`,
          `Allows to ${action} clients.`,
        ],
      );
    }
    await queryRunner.query(
      `INSERT INTO "role_permissions" ("role_id", "permission_id")
       SELECT r."id", p."id" FROM "roles" r CROSS JOIN "permissions" p
       WHERE r."name" = 'admin' AND p."name" LIKE 'clients.%'
       ON CONFLICT DO NOTHING`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DELETE FROM "permissions" WHERE "name" IN ('clients.view', 'clients.create', 'clients.edit', 'clients.delete')`,
    );
    // Public clients have no secret and cannot be kept by the older schema.
    await queryRunner.query(`DELETE FROM "service_clients" WHERE "secret_hash" IS NULL`);
    await queryRunner.query(`ALTER TABLE "service_clients" ALTER COLUMN "secret_hash" SET NOT NULL`);
    await queryRunner.query(`
      ALTER TABLE "service_clients"
        DROP COLUMN "name", DROP COLUMN "type", DROP COLUMN "redirect_uris",
        DROP COLUMN "post_logout_redirect_uris", DROP COLUMN "grant_types", DROP COLUMN "first_party",
        DROP COLUMN "backchannel_logout_uri", DROP COLUMN "dynamically_registered", DROP COLUMN "updated_at"`);
  }
}
