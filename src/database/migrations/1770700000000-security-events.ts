import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The security events other services follow (`GET /api/auth/events`): written in the transaction
 * of the change that causes them, so no committed revocation can go untold. Readers go by id, so
 * ids must become visible in id order: a statement-level trigger takes a transaction-scoped
 * advisory lock BEFORE the identity is drawn, so a later id can never commit before an earlier
 * one. A second trigger wakes every instance's listener (`NOTIFY security_events`, delivered at
 * commit).
 */
export class SecurityEvents1770700000000 implements MigrationInterface {
  name = 'SecurityEvents1770700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "security_events" (
        "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        "type" varchar(32) NOT NULL,
        "payload" jsonb NOT NULL DEFAULT '{}',
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_security_events_created" ON "security_events" ("created_at")`);
    await queryRunner.query(
      `CREATE FUNCTION security_events_in_order() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN PERFORM pg_advisory_xact_lock(1770700000); RETURN NULL; END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "security_events_in_order" BEFORE INSERT ON "security_events"
       FOR EACH STATEMENT EXECUTE FUNCTION security_events_in_order()`,
    );
    await queryRunner.query(
      `CREATE FUNCTION security_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN PERFORM pg_notify('security_events', ''); RETURN NULL; END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "security_events_notify" AFTER INSERT ON "security_events"
       FOR EACH STATEMENT EXECUTE FUNCTION security_events_notify()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "security_events"`);
    await queryRunner.query(`DROP FUNCTION security_events_notify()`);
    await queryRunner.query(`DROP FUNCTION security_events_in_order()`);
  }
}
