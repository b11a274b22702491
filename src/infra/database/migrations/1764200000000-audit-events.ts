import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The audit trail of authentication and authorization events. */
export class AuditEvents1764200000000 implements MigrationInterface {
  name = 'AuditEvents1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "audit_events" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "type" character varying(64) NOT NULL,
        "actor_id" uuid,
        "target_type" character varying(32),
        "target_id" character varying(64),
        "ip" character varying(64),
        "user_agent" character varying(512),
        "details" jsonb NOT NULL DEFAULT '{}',
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_audit_events" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_audit_events_created_at" ON "audit_events" ("created_at")`);
    await queryRunner.query(`CREATE INDEX "IDX_audit_events_type_created_at" ON "audit_events" ("type", "created_at")`);
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_events_actor_created_at" ON "audit_events" ("actor_id", "created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_events_target_created_at" ON "audit_events" ("target_id", "created_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "audit_events"`);
  }
}
