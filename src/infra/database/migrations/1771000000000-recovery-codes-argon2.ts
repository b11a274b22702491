import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Recovery codes are hashed as passwords are (Argon2id, under no key), so no key rotation can void
 * them: their PHC strings are longer than the 64 hex digits of the keyed hash stored before, which
 * still verifies and stays as it is.
 */
export class RecoveryCodesArgon21771000000000 implements MigrationInterface {
  name = 'RecoveryCodesArgon21771000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "recovery_codes" ALTER COLUMN "code_hash" TYPE character varying(255)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "recovery_codes" WHERE length("code_hash") > 64`);
    await queryRunner.query(`ALTER TABLE "recovery_codes" ALTER COLUMN "code_hash" TYPE character varying(64)`);
  }
}
