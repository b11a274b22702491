import { jwtVerify, SignJWT } from 'jose';
import { createSecretKey, randomBytes } from 'node:crypto';
import { signHs256 } from './hs256.js';

describe('signHs256', () => {
  const key = createSecretKey(randomBytes(32));
  const header = { alg: 'HS256', typ: 'at+jwt', kid: 'k-1' };
  // Non-ASCII text, a nested array and a key that jose would place last all take the same bytes.
  const claims = { sub: 'u-1', email: 'zoë@example.com', amr: ['pwd', 'otp'], token_type: 'access' };

  it('writes the same token as jose SignJWT, byte for byte', async () => {
    const fromJose = await new SignJWT(claims)
      .setProtectedHeader(header)
      .setIssuer('https://auth.example.com')
      .setAudience('https://auth.example.com')
      .setIssuedAt(1_800_000_000)
      .setExpirationTime(1_800_000_900)
      .sign(key);
    const ours = signHs256(
      header,
      {
        ...claims,
        iss: 'https://auth.example.com',
        aud: 'https://auth.example.com',
        iat: 1_800_000_000,
        exp: 1_800_000_900,
      },
      key,
    );
    expect(ours).toBe(fromJose);
  });

  it('is verified by jose under its key, and refused under another', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = signHs256(header, { ...claims, iat: now, exp: now + 60 }, key);
    const { payload, protectedHeader } = await jwtVerify(token, key, { algorithms: ['HS256'], typ: 'at+jwt' });
    expect(payload.email).toBe('zoë@example.com');
    expect(protectedHeader.kid).toBe('k-1');
    await expect(jwtVerify(token, createSecretKey(randomBytes(32)), { algorithms: ['HS256'] })).rejects.toThrow(
      'signature verification failed',
    );
  });
});
