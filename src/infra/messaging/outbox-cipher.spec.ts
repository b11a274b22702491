import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../config/app-config.js';
import { DataKeyRing } from '../keys/index.js';
import { OutboxCipher } from './outbox-cipher.js';

const cipherFor = (secret: string) =>
  new OutboxCipher(new DataKeyRing({ dataKeys: { roots: [secret], fromJwtSecrets: true } } as unknown as AppConfig));

describe('outbox payload sealing', () => {
  const cipher = cipherFor('a-secret-of-at-least-thirty-two-bytes-0001');
  const payload = { to: '+447700900123', text: 'Your sign-in code is 424242.' };

  it('opens what it sealed, and the sealed bytes hold no plaintext', () => {
    const id = randomUUID();
    const sealed = cipher.seal(id, payload);
    expect(cipher.open(id, sealed)).toEqual(payload);
    expect(sealed.toString('latin1')).not.toContain('424242');
    expect(sealed.toString('latin1')).not.toContain('+447700900123');
  });

  it('seals the same payload differently each time (a fresh nonce)', () => {
    const id = randomUUID();
    expect(cipher.seal(id, payload).equals(cipher.seal(id, payload))).toBe(false);
  });

  it('refuses a payload moved to another row, tampered with, or sealed under another secret', () => {
    const id = randomUUID();
    const sealed = cipher.seal(id, payload);
    expect(() => cipher.open(randomUUID(), sealed)).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => cipher.open(id, tampered)).toThrow();
    expect(() => cipherFor('another-secret-of-at-least-thirty-two-bytes').open(id, sealed)).toThrow();
  });
});
