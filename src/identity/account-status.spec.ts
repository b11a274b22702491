import { AppException } from '../common/app-exception.js';
import { assertMaySignIn, isDisabled } from './account-status.js';

describe('account status', () => {
  const now = Date.parse('2030-01-01T12:00:00Z');

  it('an account never disabled, or enabled again, may sign in', () => {
    expect(isDisabled({ disabledAt: null, disabledUntil: null }, now)).toBe(false);
    expect(() => assertMaySignIn({ disabledAt: null, disabledUntil: null })).not.toThrow();
  });

  it('a disabling without an end holds', () => {
    expect(isDisabled({ disabledAt: new Date(now - 1000), disabledUntil: null }, now)).toBe(true);
  });

  it('a disabling with an end holds until then and ends by itself, read from rows as dates or strings', () => {
    const disabledAt = '2030-01-01T11:00:00.000Z';
    expect(isDisabled({ disabledAt, disabledUntil: '2030-01-01T12:00:01.000Z' }, now)).toBe(true);
    expect(isDisabled({ disabledAt, disabledUntil: new Date(now) }, now)).toBe(false);
    expect(isDisabled({ disabledAt, disabledUntil: '2030-01-01T11:59:59.000Z' }, now)).toBe(false);
  });

  it('refuses with ACCOUNT_DISABLED', () => {
    let thrown: unknown;
    try {
      assertMaySignIn({ disabledAt: new Date(), disabledUntil: null });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppException);
    expect((thrown as AppException).code).toBe('ACCOUNT_DISABLED');
    expect((thrown as AppException).getStatus()).toBe(403);
  });
});
