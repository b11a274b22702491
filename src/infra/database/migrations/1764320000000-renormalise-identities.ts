import { Logger } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { normalizeEmail, normalizeMobile } from '../../../common/normalize.js';

interface IdentityRow {
  id: string;
  email: string;
  mobile: string | null;
}

export interface RenormalisationPlan {
  /** Rows whose email or mobile changes, with their new values. */
  updates: { id: string; email: string; mobile: string | null }[];
  /** Rows left as they are because their normalised value belongs to another row. */
  collisions: { id: string; field: 'email' | 'mobile'; with: string }[];
  /** Rows whose stored mobile is no valid number any more; left as they are. */
  invalid: { id: string; field: 'mobile' }[];
}

/**
 * Which rows change and which collide, for rows in their stored order. A value stays taken by
 * the row that holds it now, so a row whose normalised value another row already holds (or an
 * earlier row claims) is a collision: two accounts of one person, for an operator to merge or
 * remove, never merged here. Mobiles without a country prefix keep their digits (migrations do
 * not read DEFAULT_PHONE_REGION).
 */
export function planRenormalisation(rows: IdentityRow[]): RenormalisationPlan {
  const emailOwner = new Map(rows.map((row) => [row.email, row.id]));
  const mobileOwner = new Map(rows.filter((row) => row.mobile !== null).map((row) => [row.mobile!, row.id]));
  const plan: RenormalisationPlan = { updates: [], collisions: [], invalid: [] };
  for (const row of rows) {
    let email = normalizeEmail(row.email);
    if (email !== row.email) {
      const owner = emailOwner.get(email);
      if (owner !== undefined && owner !== row.id) {
        plan.collisions.push({ id: row.id, field: 'email', with: owner });
        email = row.email;
      } else {
        emailOwner.set(email, row.id);
      }
    }
    let mobile = row.mobile;
    if (row.mobile !== null) {
      const normalized = normalizeMobile(row.mobile);
      if (normalized === null) {
        plan.invalid.push({ id: row.id, field: 'mobile' });
      } else if (normalized !== row.mobile) {
        const owner = mobileOwner.get(normalized);
        if (owner !== undefined && owner !== row.id) {
          plan.collisions.push({ id: row.id, field: 'mobile', with: owner });
        } else {
          mobileOwner.set(normalized, row.id);
          mobile = normalized;
        }
      }
    }
    if (email !== row.email || mobile !== row.mobile) plan.updates.push({ id: row.id, email, mobile });
  }
  return plan;
}

/**
 * Re-normalises stored emails (NFKC, ASCII domains) and mobiles (E.164 for `+CC` and `00CC`)
 * with the rules the service now applies at its edge, so an account stays reachable by the
 * spelling its owner types. Collisions are reported (ids only) and left as they are.
 */
export class RenormaliseIdentities1764320000000 implements MigrationInterface {
  name = 'RenormaliseIdentities1764320000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const logger = new Logger('Migrations');
    const rows: IdentityRow[] = await queryRunner.query(`SELECT id, email, mobile FROM users ORDER BY created_at, id`);
    const plan = planRenormalisation(rows);
    for (const update of plan.updates) {
      await queryRunner.query(`UPDATE users SET email = $2, mobile = $3 WHERE id = $1`, [
        update.id,
        update.email,
        update.mobile,
      ]);
    }
    if (plan.updates.length > 0) logger.log(`Re-normalised the email or mobile of ${plan.updates.length} users.`);
    for (const collision of plan.collisions) {
      logger.warn(
        `User ${collision.id} left unchanged: its normalised ${collision.field} is that of user ${collision.with} (one person, two accounts?).`,
      );
    }
    for (const invalid of plan.invalid) {
      logger.warn(`User ${invalid.id} left unchanged: its stored ${invalid.field} is not a valid phone number.`);
    }
  }

  async down(): Promise<void> {
    // The spellings before normalisation are not kept: nothing to restore.
  }
}
