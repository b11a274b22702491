import { lockoutDecision } from './lockout-decision.js';

const limits = { lockoutThreshold: 5, lockoutSeconds: 900 };

describe('lockoutDecision', () => {
  it.each([1, 4, 5])('checks the password of attempt %i of a threshold of 5', (failures) => {
    expect(lockoutDecision({ failures, retryAfter: null }, limits)).toEqual({ kind: 'check' });
  });

  it.each([6, 7, 50])('refuses attempt %i unchecked and locks for the whole lockout', (failures) => {
    expect(lockoutDecision({ failures, retryAfter: null }, limits)).toEqual({ kind: 'lock-now', retryAfter: 900 });
  });

  it('refuses while a lock holds, with the seconds it has left, whatever the count', () => {
    expect(lockoutDecision({ failures: 5, retryAfter: 120 }, limits)).toEqual({ kind: 'locked', retryAfter: 120 });
    expect(lockoutDecision({ failures: 1, retryAfter: 1 }, limits)).toEqual({ kind: 'locked', retryAfter: 1 });
  });

  it('never answers more seconds than the lockout lasts', () => {
    expect(lockoutDecision({ failures: 5, retryAfter: 901 }, limits)).toEqual({ kind: 'locked', retryAfter: 900 });
  });

  it('follows the configured threshold', () => {
    const one = { lockoutThreshold: 1, lockoutSeconds: 60 };
    expect(lockoutDecision({ failures: 1, retryAfter: null }, one)).toEqual({ kind: 'check' });
    expect(lockoutDecision({ failures: 2, retryAfter: null }, one)).toEqual({ kind: 'lock-now', retryAfter: 60 });
  });
});
