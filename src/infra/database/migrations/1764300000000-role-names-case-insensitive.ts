import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Role names compare trimmed and case-insensitively (contract, Privilege boundaries): `Admin`
 * beside `admin` would read as the administrator role to a person while the policy ignores it.
 * The plain unique constraint stays; this index adds the folded comparison. It fails on a
 * database already holding two names that fold alike, which must then be renamed by hand.
 */
export class RoleNamesCaseInsensitive1764300000000 implements MigrationInterface {
  name = 'RoleNamesCaseInsensitive1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_roles_name_folded" ON "roles" (lower(btrim("name")))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "UQ_roles_name_folded"`);
  }
}
