import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The security events other services follow (`GET /api/auth/events`): written in the transaction
 * of the change that causes them, so no committed revocation can go untold. Readers go by id, so
 * ids must become visible in id order: every id is drawn by `next_security_event_id()`, which first
 * takes a transaction-scoped advisory lock, so a transaction that draws a later id cannot commit
 * before one that drew an earlier id (a plain identity would let a later id commit first, and a
 * reader past it would never see the earlier one). A trigger wakes every instance's listener
 * (`NOTIFY security_events`, delivered at commit).
 */
export class SecurityEvents1770700000000 implements MigrationInterface {
  name = 'SecurityEvents1770700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE SEQUENCE "security_events_id_seq"`);
    await queryRunner.query(
      `CREATE FUNCTION next_security_event_id() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
       BEGIN PERFORM pg_advisory_xact_lock(1770700000); RETURN nextval('security_events_id_seq'); END $$`,
    );
    await queryRunner.query(
      `CREATE TABLE "security_events" (
        "id" bigint PRIMARY KEY DEFAULT next_security_event_id(),
        "type" varchar(32) NOT NULL,
        "payload" jsonb NOT NULL DEFAULT '{}',
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`,
    );
    await queryRunner.query(`ALTER SEQUENCE "security_events_id_seq" OWNED BY "security_events"."id"`);
    await queryRunner.query(`CREATE INDEX "IDX_security_events_created" ON "security_events" ("created_at")`);
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
    await queryRunner.query(`DROP FUNCTION next_security_event_id()`);
  }
}
