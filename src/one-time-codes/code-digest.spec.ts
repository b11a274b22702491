import { createHmac, hkdfSync } from 'node:crypto';
import type { AppConfig } from '../config/app-config.js';
import { CodeDigest } from './code-digest.js';

const SECRET = 'a-server-secret-of-enough-length-0123456789';
const digest = new CodeDigest({ jwt: { secret: SECRET } } as AppConfig);

/** The keyed hash the separate code tables stored, written out as they computed it. */
function storedBefore(label: string, binding: string, code: string): string {
  const key = Buffer.from(hkdfSync('sha256', SECRET, '', 'otp-code-hash', 32));
  return createHmac('sha256', key).update(`${label}\n${binding}\n${code}`).digest('hex');
}

describe('the keyed hash of a one-time code', () => {
  it('still matches the codes that were stored before the codes were one table', () => {
    expect(
      digest.matches(storedBefore('login', '+14155550100', '123456'), 'sms_sign_in', '+14155550100', '123456'),
    ).toBe(true);
    expect(digest.matches(storedBefore('2fa', 'a-jti', '123456'), 'second_factor', 'a-jti', '123456')).toBe(true);
    expect(
      digest.matches(storedBefore('reauth', 'a-session', '123456'), 'reauthentication', 'a-session', '123456'),
    ).toBe(true);
    expect(
      digest.matches(storedBefore('email', 'a@example.com', '123456'), 'email_sign_in', 'a@example.com', '123456'),
    ).toBe(true);
  });

  it('binds a code to its purpose and to what it proves', () => {
    const stored = digest.of('sms_sign_in', '+14155550100', '123456');
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain('123456');
    expect(digest.matches(stored, 'sms_sign_in', '+14155550100', '654321')).toBe(false);
    expect(digest.matches(stored, 'sms_sign_in', '+14155550101', '123456')).toBe(false);
    expect(digest.matches(stored, 'reauthentication', '+14155550100', '123456')).toBe(false);
    expect(digest.matches('not-hex', 'sms_sign_in', '+14155550100', '123456')).toBe(false);
  });
});
