import { clientUriProblem, matchesRegisteredUri } from './redirect-uris.js';

describe('clientUriProblem: what a client may register', () => {
  it.each([
    ['https://app.example.com/callback', 'confidential'],
    ['https://app.example.com/callback?tenant=a', 'confidential'],
    ['https://app.example.com', 'confidential'],
    ['https://app.example.com/', 'confidential'],
    ['https://app.example.com:8443/cb', 'confidential'],
    ['https://xn--bcher-kva.example/cb', 'confidential'],
    ['http://localhost/callback', 'confidential'],
    ['http://localhost:3000/callback', 'public'],
    ['http://127.0.0.1:8080/cb', 'public'],
    ['http://[::1]/cb', 'public'],
    ['com.example.app:/callback', 'public'],
    ['com.example.app://callback/path', 'public'],
  ] as const)('accepts %s for a %s client', (uri, type) => {
    expect(clientUriProblem(uri, type, 'redirect')).toBeNull();
  });

  it.each([
    ['javascript:alert(1)', 'public'],
    ['javascript://app.example.com/%0aalert(1)', 'public'],
    ['data:text/html,<script>alert(1)</script>', 'public'],
    ['file:///etc/passwd', 'public'],
    ['vbscript:msgbox', 'public'],
    ['ftp://app.example.com/cb', 'confidential'],
    ['ws://localhost/cb', 'public'],
  ] as const)('refuses the dangerous scheme of %s', (uri, type) => {
    expect(clientUriProblem(uri, type, 'redirect')).toMatch(/must use https/);
  });

  it('refuses http on a host that is not loopback, and loopback look-alikes', () => {
    for (const uri of [
      'http://app.example.com/cb',
      'http://localhost.evil.example/cb',
      'http://127.0.0.2/cb',
      'http://127.0.0.1.nip.io/cb',
      'http://10.0.0.1/cb',
    ]) {
      expect(clientUriProblem(uri, 'public', 'redirect')).toBe(
        'may use http only on a loopback host (localhost, 127.0.0.1 or [::1]); use https',
      );
    }
  });

  it('refuses userinfo in every spelling, including one that points elsewhere', () => {
    for (const uri of [
      'https://user@app.example.com/cb',
      'https://user:pass@app.example.com/cb',
      'https://app.example.com@evil.example/cb',
      'https://@app.example.com/cb',
      'http://localhost:8080@evil.example/cb',
      'com.example.app://user@callback/x',
    ]) {
      expect(clientUriProblem(uri, 'public', 'redirect')).toBe('must not contain userinfo (user@ or user:password@)');
    }
  });

  it('refuses a fragment, also an empty one', () => {
    expect(clientUriProblem('https://app.example.com/cb#x', 'confidential', 'redirect')).toBe(
      'must not have a fragment (#)',
    );
    expect(clientUriProblem('https://app.example.com/cb#', 'confidential', 'redirect')).toBe(
      'must not have a fragment (#)',
    );
  });

  it('refuses a wildcard anywhere', () => {
    for (const uri of ['https://*.example.com/cb', 'https://app.example.com/*', 'https://app.example.com/cb?x=*']) {
      expect(clientUriProblem(uri, 'confidential', 'redirect')).toBe('must not contain a wildcard (*)');
    }
  });

  it('refuses a dot segment with parameters, which Tomcat and Spring resolve as a dot segment', () => {
    for (const [uri, type] of [
      ['https://app.example.com/callback/..;/admin', 'confidential'],
      ['https://app.example.com/..;/callback', 'confidential'],
      ['https://app.example.com/cb/.;jsessionid=x/y', 'confidential'],
      ['https://app.example.com/cb/%2E%2e;/y', 'confidential'],
      ['http://127.0.0.1:8080/cb/..;/x', 'public'],
      ['com.example.app:/cb/..;/x', 'public'],
    ] as const) {
      expect(clientUriProblem(uri, type, 'redirect')).toBe(
        'must not contain a dot segment with parameters (..; or .;)',
      );
    }
    expect(clientUriProblem('https://app.example.com/callback;v=1', 'confidential', 'redirect')).toBeNull();
    expect(clientUriProblem('https://app.example.com/v1..;/cb', 'confidential', 'redirect')).toBeNull();
  });

  it('refuses relative URIs and anything that is not an absolute URI', () => {
    expect(clientUriProblem('/callback', 'confidential', 'redirect')).toBe('must be an absolute URI');
    expect(clientUriProblem('//app.example.com/cb', 'confidential', 'redirect')).toBe('must be an absolute URI');
    expect(clientUriProblem('https:app.example.com/cb', 'confidential', 'redirect')).toBe('must be an absolute URI');
    expect(clientUriProblem('', 'confidential', 'redirect')).toBe('must be a non-empty string');
    expect(clientUriProblem(42, 'confidential', 'redirect')).toBe('must be a non-empty string');
  });

  it('refuses spaces, control characters, Unicode and backslashes', () => {
    expect(clientUriProblem('https://app.example.com/c b', 'confidential', 'redirect')).toMatch(/printable ASCII/);
    expect(clientUriProblem('https://app.example.com/cb\n', 'confidential', 'redirect')).toMatch(/printable ASCII/);
    expect(clientUriProblem('https://bücher.example/cb', 'confidential', 'redirect')).toMatch(/xn-- form/);
    expect(clientUriProblem('https://аpp.example.com/cb', 'confidential', 'redirect')).toMatch(/printable ASCII/);
    expect(clientUriProblem('https://app.example.com\\@evil.example/cb', 'confidential', 'redirect')).toBe(
      'must not contain a backslash',
    );
  });

  it('refuses every spelling that is not the canonical one, and names the canonical one', () => {
    const cases: [string, string][] = [
      ['HTTPS://app.example.com/cb', 'https://app.example.com/cb'],
      ['https://APP.example.com/cb', 'https://app.example.com/cb'],
      ['https://app.example.com:443/cb', 'https://app.example.com/cb'],
      ['https://app.example.com/a/../cb', 'https://app.example.com/cb'],
      ['https://app.example.com/./cb', 'https://app.example.com/cb'],
      ['https://app.example.com/%2e%2e/cb', 'https://app.example.com/cb'],
      ['http://LOCALHOST/cb', 'http://localhost/cb'],
      ['http://0x7f.0.0.1/cb', 'http://127.0.0.1/cb'],
      ['http://2130706433/cb', 'http://127.0.0.1/cb'],
      ['http://[0:0:0:0:0:0:0:1]/cb', 'http://[::1]/cb'],
      ['https://app.example.com?x=1', 'https://app.example.com/?x=1'],
    ];
    for (const [uri, canonical] of cases) {
      expect(clientUriProblem(uri, 'confidential', 'redirect')).toBe(
        `must be written in its canonical form: ${canonical}`,
      );
    }
  });

  it('accepts a private-use scheme only for a public client, and only with a dot', () => {
    expect(clientUriProblem('com.example.app:/callback', 'confidential', 'redirect')).toBe(
      'may use a private-use scheme only for a public client',
    );
    expect(clientUriProblem('myapp:/callback', 'public', 'redirect')).toMatch(/private-use scheme containing a dot/);
    expect(clientUriProblem('Com.Example.App:/callback', 'public', 'redirect')).toMatch(/canonical form/);
    expect(clientUriProblem('com.example.app:/a/../callback', 'public', 'redirect')).toBe(
      'must be written in its canonical form: com.example.app:/callback',
    );
  });

  it('applies the same rules to post-logout redirect URIs', () => {
    expect(clientUriProblem('https://app.example.com/bye', 'confidential', 'post_logout_redirect')).toBeNull();
    expect(clientUriProblem('http://app.example.com/bye', 'confidential', 'post_logout_redirect')).toMatch(/http only/);
    expect(clientUriProblem('javascript:alert(1)', 'public', 'post_logout_redirect')).toMatch(/must use https/);
  });

  it('wants https (or loopback http) for the back-channel logout receiver, which the service calls', () => {
    expect(clientUriProblem('https://app.example.com/backchannel', 'confidential', 'backchannel_logout')).toBeNull();
    expect(clientUriProblem('http://127.0.0.1:9000/bc', 'confidential', 'backchannel_logout')).toBeNull();
    expect(clientUriProblem('com.example.app:/bc', 'public', 'backchannel_logout')).toBe(
      'must use https, or http on a loopback host',
    );
    expect(clientUriProblem('http://app.example.com/bc', 'confidential', 'backchannel_logout')).toMatch(/http only/);
  });

  it('refuses a URI longer than 2000 characters', () => {
    const long = `https://app.example.com/${'a'.repeat(2000)}`;
    expect(clientUriProblem(long, 'confidential', 'redirect')).toBe('must be at most 2000 characters long');
  });
});

describe('matchesRegisteredUri: the request against what is registered', () => {
  const registered = ['https://app.example.com/callback', 'com.example.app:/callback'];

  it('accepts the registered URI, character for character', () => {
    expect(matchesRegisteredUri(registered, 'https://app.example.com/callback')).toBe(true);
    expect(matchesRegisteredUri(registered, 'com.example.app:/callback')).toBe(true);
  });

  it.each([
    'https://app.example.com/callback/',
    'https://app.example.com/callback?x=1',
    'https://app.example.com/callback#x',
    'https://app.example.com/callback/..;/evil',
    'https://app.example.com/callback/../evil',
    'https://app.example.com/Callback',
    'https://APP.example.com/callback',
    'HTTPS://app.example.com/callback',
    'https://app.example.com:443/callback',
    'https://app.example.com/%63allback',
    'https://app.example.com/callback%2F',
    'https://app.example.com/callbac',
    'https://app.example.com.evil.example/callback',
    'https://evil.example/callback',
    'https://app.example.com@evil.example/callback',
    'https://user@app.example.com/callback',
    'https://app.example.com\\@evil.example/callback',
    'https://app.example.com//callback',
    'http://app.example.com/callback',
    'https://app.example.com:8443/callback',
    ' https://app.example.com/callback',
    'https://app.example.com/callback ',
    'https://аpp.example.com/callback',
    'com.example.app:/callback/',
    'com.example.app://callback',
  ])('refuses %s', (uri) => {
    expect(matchesRegisteredUri(registered, uri)).toBe(false);
  });

  it('refuses what is not a string', () => {
    expect(matchesRegisteredUri(registered, undefined)).toBe(false);
    expect(matchesRegisteredUri(registered, ['https://app.example.com/callback'])).toBe(false);
  });

  it('lets a registered loopback URI change its port, and nothing else', () => {
    const loopback = ['http://127.0.0.1/callback', 'http://localhost:3000/cb?x=1', 'http://[::1]/cb'];
    expect(matchesRegisteredUri(loopback, 'http://127.0.0.1:51004/callback')).toBe(true);
    expect(matchesRegisteredUri(loopback, 'http://127.0.0.1/callback')).toBe(true);
    expect(matchesRegisteredUri(loopback, 'http://localhost:8080/cb?x=1')).toBe(true);
    expect(matchesRegisteredUri(loopback, 'http://localhost/cb?x=1')).toBe(true);
    expect(matchesRegisteredUri(loopback, 'http://[::1]:9000/cb')).toBe(true);

    for (const uri of [
      'http://127.0.0.1:51004/callback/',
      'http://127.0.0.1:51004/other',
      'https://127.0.0.1:51004/callback',
      'http://localhost:51004/callback',
      'http://127.0.0.1:51004@evil.example/callback',
      'http://127.0.0.1:/callback',
      'http://127.0.0.1:0/callback',
      'http://127.0.0.1:08080/callback',
      'http://127.0.0.1:65536/callback',
      'http://127.0.0.1:51004/callback#x',
      'http://127.0.0.1.evil.example:51004/callback',
      'http://localhost:8080/cb?x=2',
      'http://[::1]:9000/cb/',
    ]) {
      expect(matchesRegisteredUri(loopback, uri)).toBe(false);
    }
  });

  it('gives no port freedom to a URI that is not loopback', () => {
    expect(matchesRegisteredUri(['https://app.example.com/cb'], 'https://app.example.com:444/cb')).toBe(false);
  });
});
