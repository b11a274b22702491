import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Introspection clients made by `create-client`; the secret is stored as its SHA-256 only. */
export class ServiceClients1764350000000 implements MigrationInterface {
  name = 'ServiceClients1764350000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "service_clients" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" character varying(100) NOT NULL,
        "secret_hash" character varying(64) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_service_clients" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_service_clients_client_id" ON "service_clients" ("client_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "service_clients"`);
  }
}
