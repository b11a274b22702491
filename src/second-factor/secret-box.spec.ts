import { DataKeyRing } from '../infra/keys/index.js';
import { SecretBox } from './secret-box.js';
import type { AppConfig } from '../config/app-config.js';

const box = (...roots: string[]) =>
  new SecretBox(new DataKeyRing({ dataKeys: { roots, fromJwtSecrets: true } } as unknown as AppConfig));

describe('SecretBox', () => {
  it('opens what it sealed, for the same owner only', () => {
    const sealed = box('a-secret-0123456789-abcdefghijklmnop').seal('JBSWY3DPEHPK3PXP', 'user-1');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box('a-secret-0123456789-abcdefghijklmnop').open(sealed, 'user-1')).toBe('JBSWY3DPEHPK3PXP');
    expect(() => box('a-secret-0123456789-abcdefghijklmnop').open(sealed, 'user-2')).toThrow();
  });

  it('uses a fresh nonce each time and refuses another key or a tampered ciphertext', () => {
    const sealer = box('a-secret-0123456789-abcdefghijklmnop');
    const first = sealer.seal('same', 'u');
    expect(sealer.seal('same', 'u')).not.toBe(first);
    expect(() => box('another-secret-0123456789-abcdefghij').open(first, 'u')).toThrow();
    const body = Buffer.from(first.slice(3), 'base64url');
    body[body.length - 1] ^= 1;
    expect(() => sealer.open(`v1.${body.toString('base64url')}`, 'u')).toThrow();
  });

  it('opens under an older key of the ring after a rotation, and seals under the first', () => {
    const old = 'a-secret-0123456789-abcdefghijklmnop';
    const sealed = box(old).seal('JBSWY3DPEHPK3PXP', 'user-1');
    const rotated = box('a-new-data-key-0123456789-abcdefghijk', old);
    expect(rotated.openWith(sealed, 'user-1')).toEqual({ plaintext: 'JBSWY3DPEHPK3PXP', sealedUnderFirst: false });
    const resealed = rotated.seal('JBSWY3DPEHPK3PXP', 'user-1');
    expect(box('a-new-data-key-0123456789-abcdefghijk').open(resealed, 'user-1')).toBe('JBSWY3DPEHPK3PXP');
    expect(() => box('a-new-data-key-0123456789-abcdefghijk').open(sealed, 'user-1')).toThrow();
  });
});
