import { createHmac, hkdfSync } from 'node:crypto';
import type { AppConfig } from '../config/app-config.js';
import { DataKeyRing } from '../infra/keys/index.js';
import { CodeDigest } from './code-digest.js';

const SECRET = 'a-server-secret-of-enough-length-0123456789';
const ring = (roots: string[]) =>
  new DataKeyRing({ dataKeys: { roots, fromJwtSecrets: true } } as unknown as AppConfig);
const digest = new CodeDigest(ring([SECRET]));

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

  it('a code hashed under an older key of the ring still matches after a rotation; new codes use the first key', () => {
    const before = digest.of('email_sign_in', 'a@example.com', '123456');
    const rotated = new CodeDigest(ring(['a-new-data-key-of-enough-length-0123456789', SECRET]));
    expect(rotated.matches(before, 'email_sign_in', 'a@example.com', '123456')).toBe(true);
    expect(rotated.of('email_sign_in', 'a@example.com', '123456')).not.toBe(before);
    const dropped = new CodeDigest(ring(['a-new-data-key-of-enough-length-0123456789']));
    expect(dropped.matches(before, 'email_sign_in', 'a@example.com', '123456')).toBe(false);
  });
});
