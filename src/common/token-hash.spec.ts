import { digestsEqual, sha256Hex } from './token-hash.js';

describe('token hashes', () => {
  it('is the hex SHA-256 of the token', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('compares equal digests as equal and anything else as different', () => {
    const digest = sha256Hex('token');
    expect(digestsEqual(digest, sha256Hex('token'))).toBe(true);
    expect(digestsEqual(digest, sha256Hex('other'))).toBe(false);
    expect(digestsEqual(digest, digest.slice(0, 32))).toBe(false);
    expect(digestsEqual('', '')).toBe(false);
  });
});
