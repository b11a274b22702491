import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { RenormaliseIdentities1764320000000 } from '../../src/infra/database/migrations/1764320000000-renormalise-identities.js';
import { withDatabase } from '../support/test-database.js';

/**
 * The migration that re-normalises stored emails and mobiles, on a database holding rows written
 * before the current rules: spellings it rewrites, and collisions (two rows of one person) that it
 * reports by id and leaves as they are.
 */
describe('re-normalising stored emails and mobiles', () => {
  it('rewrites legacy spellings, reports collisions and invalid numbers by id, and leaves those rows unchanged', () =>
    withDatabase('migrated', async (dataSource) => {
      const legacy: [string, string, string | null][] = [
        ['ann', 'ann@exämple.com', '004917611111111'],
        ['bob-full-width', 'ｂｏｂ@example.com', null],
        ['bob', 'bob@example.com', '+4917622222222'],
        ['carol', 'jose\u0301@example.com', '004917622222222'],
        ['dave', 'dave@example.com', '07911123456'],
        ['eve', 'eve@example.com', '+447700900123'],
      ];
      const ids: Record<string, string> = {};
      for (const [index, [name, email, mobile]] of legacy.entries()) {
        const [row] = await dataSource.query(
          `INSERT INTO users (name, email, mobile, password_hash, created_at)
           VALUES ($1, $2, $3, 'x', now() - make_interval(secs => $4)) RETURNING id`,
          [name, email, mobile, 100 - index],
        );
        ids[name] = row.id;
      }

      const warnings: string[] = [];
      const spy = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
        warnings.push(String(message));
      });
      const queryRunner = dataSource.createQueryRunner();
      try {
        await queryRunner.startTransaction();
        await new RenormaliseIdentities1764320000000().up(queryRunner);
        await queryRunner.commitTransaction();
      } finally {
        await queryRunner.release();
        spy.mockRestore();
      }

      const rows: { name: string; email: string; mobile: string | null }[] = await dataSource.query(
        `SELECT name, email, mobile FROM users ORDER BY created_at`,
      );
      expect(rows).toEqual([
        { name: 'ann', email: 'ann@xn--exmple-cua.com', mobile: '+4917611111111' },
        // Its normalised email is bob's: left as it is, and reported.
        { name: 'bob-full-width', email: 'ｂｏｂ@example.com', mobile: null },
        { name: 'bob', email: 'bob@example.com', mobile: '+4917622222222' },
        // The email is rewritten; the mobile, bob's in E.164, is left and reported.
        { name: 'carol', email: 'jos\u00e9@example.com', mobile: '004917622222222' },
        // No country prefix and no region: kept as its digits.
        { name: 'dave', email: 'dave@example.com', mobile: '07911123456' },
        { name: 'eve', email: 'eve@example.com', mobile: '+447700900123' },
      ]);
      expect(warnings).toEqual(
        expect.arrayContaining([
          expect.stringContaining(
            `User ${ids['bob-full-width']} left unchanged: its normalised email is that of user ${ids.bob}`,
          ),
          expect.stringContaining(`User ${ids.carol} left unchanged: its normalised mobile is that of user ${ids.bob}`),
          expect.stringContaining(`User ${ids.eve} left unchanged: its stored mobile is not a valid phone number`),
        ]),
      );
      expect(warnings).toHaveLength(3);
      // Ids only: no email or number is written to the log. The ids are taken out first: a random
      // uuid may hold "0049" among its hex digits.
      const withoutIds = warnings
        .join('\n')
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>');
      expect(withoutIds).not.toMatch(/@|\+49|0049|17622222222|7700900123/);
    }));

  it('changes nothing on a database already normalised', () =>
    withDatabase('migrated', async (dataSource) => {
      await dataSource.query(
        `INSERT INTO users (name, email, mobile, password_hash) VALUES ('a', 'a@example.com', '+4917633333333', 'x')`,
      );
      const queryRunner = dataSource.createQueryRunner();
      try {
        await new RenormaliseIdentities1764320000000().up(queryRunner);
      } finally {
        await queryRunner.release();
      }
      expect(await dataSource.query(`SELECT email, mobile FROM users`)).toEqual([
        { email: 'a@example.com', mobile: '+4917633333333' },
      ]);
    }));
});
