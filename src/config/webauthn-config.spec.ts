import { buildAppConfig, ConfigurationError } from './app-config.js';
import { parseEnvironment } from './environment.js';

const STRONG_SECRET = 'q4Zr7XhN0vJm2bYt9KcW1sLd8FpGe5UaTnR3oHiB6yE=';
const build = (env: Record<string, string>) => buildAppConfig(parseEnvironment({ JWT_SECRET: STRONG_SECRET, ...env }));

describe('passkeys: the relying party (WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME, WEBAUTHN_ORIGINS)', () => {
  it("defaults to APP_URL's host and origin, and the service's name", () => {
    expect(build({}).webauthn).toEqual({
      rpId: 'localhost',
      rpName: 'auth-rbac-service',
      origins: ['http://localhost:3000'],
    });
    expect(build({ APP_URL: 'https://auth.example.com/base/' }).webauthn).toEqual({
      rpId: 'auth.example.com',
      rpName: 'auth-rbac-service',
      origins: ['https://auth.example.com'],
    });
  });

  it('takes a registrable parent domain and several front-end origins on it', () => {
    const config = build({
      APP_URL: 'https://auth.example.com',
      WEBAUTHN_RP_ID: 'Example.com',
      WEBAUTHN_RP_NAME: 'Example',
      WEBAUTHN_ORIGINS: 'https://app.example.com, https://example.com:8443 ,https://auth.example.com/',
    });
    expect(config.webauthn).toEqual({
      rpId: 'example.com',
      rpName: 'Example',
      origins: ['https://app.example.com', 'https://example.com:8443', 'https://auth.example.com'],
    });
  });

  it('refuses an origin that is not on the RP ID, or not an origin at all', () => {
    expect(() => build({ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://example.org' })).toThrow(
      ConfigurationError,
    );
    expect(() => build({ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://notexample.com' })).toThrow(
      /not on WEBAUTHN_RP_ID example.com/,
    );
    expect(() => build({ WEBAUTHN_ORIGINS: 'localhost:3000' })).toThrow(ConfigurationError);
    expect(() => build({ WEBAUTHN_RP_ID: 'https://example.com' })).toThrow(/WEBAUTHN_RP_ID/);
  });
});
