import { accountOf } from './rate-limit.guard.js';
import { lockoutSubject } from '../lockout/index.js';

describe('the account a rate-limited request names', () => {
  it('normalises emails as they are stored: trimmed and lower-cased', () => {
    expect(accountOf({ email: '  Ann@Example.COM ', password: 'x' })).toBe('email:ann@example.com');
  });

  it('reduces mobiles to their digits, so spellings of one number share a budget', () => {
    const key = 'mobile:447700900123';
    for (const mobile of ['+447700900123', '+44 7700 900123', '44-7700-900-123', '(44) 7700.900123']) {
      expect(accountOf({ mobile })).toBe(key);
    }
  });

  it('reads 00CC as +CC, and a national number in DEFAULT_PHONE_REGION, as the service stores them', () => {
    for (const mobile of ['+4917612345678', '004917612345678', '0049 176 1234 5678']) {
      expect(accountOf({ mobile })).toBe('mobile:4917612345678');
    }
    expect(accountOf({ mobile: '0176 12345678' }, 'DE')).toBe('mobile:4917612345678');
    expect(accountOf({ mobile: '0176 12345678' })).toBe('mobile:017612345678');
  });

  it('names nothing for bodies without a usable email or mobile', () => {
    for (const body of [
      undefined,
      null,
      'text',
      [],
      {},
      { email: '' },
      { email: 42 },
      { mobile: ['1'] },
      { mobile: '+ -' },
      { refresh_token: 'x' },
    ]) {
      expect(accountOf(body)).toBeUndefined();
    }
  });
});

describe('the subject of a lockout', () => {
  it('is the account when the login names one, whichever identifier was used', () => {
    expect(lockoutSubject('6f1c', { email: 'a@b.c' })).toBe('user:6f1c');
    expect(lockoutSubject('6f1c', { mobile: '+447700900123' })).toBe('user:6f1c');
  });

  it('is a digest of the identifier when no account has it', () => {
    expect(lockoutSubject(null, { email: 'a@b.c' })).toMatch(/^email:[0-9a-f]{64}$/);
    expect(lockoutSubject(null, { mobile: '+447700900123' })).toMatch(/^mobile:[0-9a-f]{64}$/);
    expect(lockoutSubject(null, { email: 'a@b.c' })).not.toBe(lockoutSubject(null, { email: 'b@b.c' }));
  });
});
