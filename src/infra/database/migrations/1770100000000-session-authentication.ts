import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a session's holder last proved, carried into every access token of the session (OpenID
 * Connect `auth_time`, RFC 8176 `amr`): set at sign-in, moved by a re-authentication, kept by a
 * refresh. Sessions from before this column count as proved when they were created, by password.
 */
export class SessionAuthentication1770100000000 implements MigrationInterface {
  name = 'SessionAuthentication1770100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "sessions" ADD "auth_time" TIMESTAMP WITH TIME ZONE, ADD "amr" text[] NOT NULL DEFAULT '{pwd}'`,
    );
    await queryRunner.query(`UPDATE "sessions" SET "auth_time" = "created_at"`);
    await queryRunner.query(
      `ALTER TABLE "sessions" ALTER COLUMN "auth_time" SET NOT NULL, ALTER COLUMN "auth_time" SET DEFAULT now()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "amr", DROP COLUMN "auth_time"`);
  }
}
