import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The contents resource; a content keeps existing when its author's account is deleted. */
export class Contents1763900000001 implements MigrationInterface {
  name = 'Contents1763900000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "contents" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "title" character varying(255) NOT NULL,
        "body" text NOT NULL,
        "author_id" uuid,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_b7c504072e537532d7080c54fac" PRIMARY KEY ("id"))`);
    // ON DELETE SET NULL scans contents for the deleted user: the index keeps that cheap.
    await queryRunner.query(`CREATE INDEX "IDX_contents_author_id" ON "contents" ("author_id")`);
    await queryRunner.query(`
      ALTER TABLE "contents" ADD CONSTRAINT "FK_contents_author_id"
        FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "contents"`);
  }
}
