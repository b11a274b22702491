import {
  accountStatusColumns,
  isDisabled,
  maySignInSql,
  type AccountStatus,
} from '../../src/identity/account-status.js';
import { insertUser, useMediumDatabase } from './medium-database.js';

const HOUR = 3_600_000;

/**
 * The disabling rule has two forms: `isDisabled` over a row the service has read, and
 * `maySignInSql` inside the statements that decide in the database (the refresh's compare-and-set,
 * the provider's browser session, the admin list's `disabled`). Every combination of the two
 * columns, through both forms, must give the same answer.
 */
describe('the disabling rule in SQL and in TypeScript', () => {
  const fixture = useMediumDatabase();

  const past = () => new Date(Date.now() - HOUR);
  const future = () => new Date(Date.now() + HOUR);
  const cases: [string, () => Partial<Record<'disabledAt' | 'disabledUntil', Date | null>>, boolean][] = [
    ['never disabled', () => ({}), false],
    ['disabled without an end', () => ({ disabledAt: past() }), true],
    ['disabled until a moment to come', () => ({ disabledAt: past(), disabledUntil: future() }), true],
    ['disabled until a moment that has passed', () => ({ disabledAt: past(), disabledUntil: past() }), false],
    ['an end without a disabling', () => ({ disabledUntil: future() }), false],
  ];

  it.each(cases)('%s: both forms answer the same', async (_name, columns, disabled) => {
    const userId = await insertUser(fixture.db, columns());
    const [row]: (AccountStatus & { maySignIn: boolean })[] = await fixture.db.query(
      `SELECT ${accountStatusColumns('u')}, ${maySignInSql('u')} AS "maySignIn" FROM users u WHERE u.id = $1`,
      [userId],
    );
    expect(isDisabled(row!)).toBe(disabled);
    expect(row!.maySignIn).toBe(!disabled);
  });
});
