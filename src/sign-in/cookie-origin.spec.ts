import { claimedOrigin, isWriteMethod, originOf, TrustedOrigins } from './cookie-origin.js';

describe('cookie-authenticated write origins', () => {
  const trusted = new TrustedOrigins('https://accounts.example.test/base/', [
    'https://app.example.test',
    'http://localhost:5173/',
  ]);

  it('treats POST, PUT, PATCH and DELETE as writes, in any case', () => {
    expect(['POST', 'put', 'PATCH', 'Delete'].map(isWriteMethod)).toEqual([true, true, true, true]);
    expect(['GET', 'HEAD', 'OPTIONS'].map(isWriteMethod)).toEqual([false, false, false]);
  });

  it('normalises origins as browsers serialise them', () => {
    expect(originOf('HTTPS://Accounts.Example.Test:443/path?q=1')).toBe('https://accounts.example.test');
    expect(originOf('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
    expect(originOf('null')).toBeNull();
    expect(originOf('file:///etc/passwd')).toBeNull();
    expect(originOf('not a url')).toBeNull();
  });

  it('reads the Origin first, the Referer only without one', () => {
    expect(claimedOrigin({ origin: 'https://evil.example', referer: 'https://app.example.test/x' })).toBe(
      'https://evil.example',
    );
    expect(claimedOrigin({ origin: 'null', referer: 'https://app.example.test/x' })).toBeNull();
    expect(claimedOrigin({ referer: 'https://app.example.test/x?y=1' })).toBe('https://app.example.test');
    expect(claimedOrigin({})).toBeNull();
  });

  it("allows APP_URL's origin, the CORS origins and the request's own origin, nothing else", () => {
    expect(trusted.allows('https://accounts.example.test', null)).toBe(true);
    expect(trusted.allows('https://app.example.test', null)).toBe(true);
    expect(trusted.allows('http://localhost:5173', null)).toBe(true);
    expect(trusted.allows('http://127.0.0.1:3000', 'http://127.0.0.1:3000')).toBe(true);
    expect(trusted.allows('http://accounts.example.test', null)).toBe(false);
    expect(trusted.allows('https://accounts.example.test.evil.example', null)).toBe(false);
    expect(trusted.allows('https://app.example.test:8443', null)).toBe(false);
    expect(trusted.allows(null, 'http://127.0.0.1:3000')).toBe(false);
  });
});
