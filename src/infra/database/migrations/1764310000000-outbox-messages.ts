import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Outgoing SMS and mail, queued by requests and sent by the process after the response. */
export class OutboxMessages1764310000000 implements MigrationInterface {
  name = 'OutboxMessages1764310000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "outbox_messages" (
        "id" uuid NOT NULL,
        "channel" character varying(8) NOT NULL,
        "kind" character varying(32) NOT NULL,
        "user_id" uuid,
        "origin" uuid NOT NULL,
        "payload" bytea,
        "status" character varying(16) NOT NULL DEFAULT 'pending',
        "attempts" integer NOT NULL DEFAULT '0',
        "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "last_error" character varying(200),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "finished_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "PK_outbox_messages" PRIMARY KEY ("id"))`);
    await queryRunner.query(
      `CREATE INDEX "IDX_outbox_messages_status_next_attempt" ON "outbox_messages" ("status", "next_attempt_at")`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_outbox_messages_user_id" ON "outbox_messages" ("user_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "outbox_messages"`);
  }
}
