import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { buildAppConfig, ConfigurationError } from './app-config.js';
import { InvalidEnvironmentError, parseEnvironment } from './environment.js';
import { PRODUCTION_ENVIRONMENT, TEST_JWT_SECRET } from '../../test/support/test-config.js';

const build = (env: Record<string, string>) => buildAppConfig(parseEnvironment(env));
/** 32 random bytes, base64: what `openssl rand -base64 32` prints. */
const STRONG_SECRET = 'q4Zr7XhN0vJm2bYt9KcW1sLd8FpGe5UaTnR3oHiB6yE=';

describe('configuration', () => {
  it("applies the contract's defaults", () => {
    const config = build({ JWT_SECRET: STRONG_SECRET });
    expect(config.http.port).toBe(3000);
    expect(config.jwt).toMatchObject({ accessTokenTtl: 900, refreshTokenTtl: 604800, sessionMaxAge: 2592000 });
    expect(config.resetTokenTtl).toBe(3600);
    expect(config.otp).toEqual({ length: 6, ttl: 300, maxAttempts: 3, resendSeconds: 60, hourlyCap: 10 });
    expect(config.loginMethods).toEqual({ emailPassword: true, mobileOtp: false, emailCode: false });
    expect(config.requireEmailVerification).toBe(false);
    expect(config.passwordHashing).toEqual({
      memoryKib: 19456,
      iterations: 2,
      parallelism: 1,
      concurrency: availableParallelism(),
    });
    expect(config.limits).toEqual({
      ratePerMinute: 30,
      globalRatePerMinute: 1200,
      lockoutThreshold: 10,
      lockoutSeconds: 900,
    });
    expect(config.http.bodyLimitBytes).toBe(16384);
    expect(config.sms.transport).toBe('log');
    expect(config.database.url).toBeUndefined();
    expect(config.database.dataDir).toMatch(/\/data$/);
  });

  it('takes APP_URL from PORT when it is unset, so the issuer and links name the port the service listens on', () => {
    const config = build({ JWT_SECRET: STRONG_SECRET, PORT: '4100' });
    expect(config.http.appUrl).toBe('http://localhost:4100');
    expect(config.http.issuer).toBe('http://localhost:4100');
    expect(config.webauthn.origins).toEqual(['http://localhost:4100']);
    expect(build({ JWT_SECRET: STRONG_SECRET }).http.appUrl).toBe('http://localhost:3000');
    expect(build({ JWT_SECRET: STRONG_SECRET, PORT: '4100', APP_URL: 'https://auth.example.com' }).http.appUrl).toBe(
      'https://auth.example.com',
    );
  });

  it('listens on 127.0.0.1 outside production and on every interface in production, unless HOST says otherwise', () => {
    expect(build({ JWT_SECRET: STRONG_SECRET }).http.host).toBe('127.0.0.1');
    expect(build({ JWT_SECRET: STRONG_SECRET, APP_ENV: 'development' }).http.host).toBe('127.0.0.1');
    expect(build({ JWT_SECRET: STRONG_SECRET, HOST: '0.0.0.0' }).http.host).toBe('0.0.0.0');
    expect(build({ ...PRODUCTION_ENVIRONMENT, JWT_SECRET: STRONG_SECRET }).http.host).toBe('0.0.0.0');
    expect(build({ ...PRODUCTION_ENVIRONMENT, JWT_SECRET: STRONG_SECRET, HOST: '10.0.0.5' }).http.host).toBe(
      '10.0.0.5',
    );
    expect(() => build({ JWT_SECRET: STRONG_SECRET, HOST: 'http://x' })).toThrow(/HOST/);
  });

  it('runs ARGON2_CONCURRENCY hashes at once, at least one', () => {
    expect(build({ JWT_SECRET: STRONG_SECRET, ARGON2_CONCURRENCY: '3' }).passwordHashing.concurrency).toBe(3);
    expect(() => build({ JWT_SECRET: STRONG_SECRET, ARGON2_CONCURRENCY: '0' })).toThrow(InvalidEnvironmentError);
  });

  it('reads numbers and booleans from strings', () => {
    const config = build({
      JWT_SECRET: STRONG_SECRET,
      PORT: '8080',
      AUTH_MOBILE_OTP: 'true',
      AUTH_EMAIL_PASSWORD: '0',
      AUTH_EMAIL_CODE: 'true',
      REQUIRE_EMAIL_VERIFICATION: 'true',
    });
    expect(config.http.port).toBe(8080);
    expect(config.loginMethods).toEqual({ emailPassword: false, mobileOtp: true, emailCode: true });
    expect(config.requireEmailVerification).toBe(true);
  });

  it('names every invalid variable', () => {
    expect(() => build({ PORT: 'http', OTP_LENGTH: '2', DATABASE_URL: 'mysql://x', SMS_TRANSPORT: 'pigeon' })).toThrow(
      InvalidEnvironmentError,
    );
    try {
      build({ PORT: 'http', OTP_LENGTH: '2', DATABASE_URL: 'mysql://x', SMS_TRANSPORT: 'pigeon' });
    } catch (error) {
      const problems = (error as InvalidEnvironmentError).problems.join('\n');
      for (const name of ['PORT', 'OTP_LENGTH', 'DATABASE_URL', 'SMS_TRANSPORT']) expect(problems).toContain(name);
    }
  });

  it('never echoes a secret value in a validation message', () => {
    expect(() => parseEnvironment({ SEED_ADMIN_PASSWORD: 'x', TWILIO_AUTH_TOKEN: 'tok', PORT: 'bad' })).toThrow(/PORT/);
    try {
      parseEnvironment({ JWT_SECRET: ['not', 'a', 'string'] as unknown as string });
    } catch (error) {
      expect((error as Error).message).not.toContain('not');
      expect((error as Error).message).toContain('JWT_SECRET=(hidden)');
    }
  });

  it('reads the signing algorithm, earlier keys and introspection clients, and hides client secrets in errors', () => {
    expect(build({ JWT_SECRET: STRONG_SECRET }).signing).toEqual({
      algorithm: 'HS256',
      privateKeyPem: undefined,
      privateKeyFile: undefined,
      previousSecrets: [],
      previousPublicKeys: [],
    });
    const pem = '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----';
    const config = build({
      JWT_SECRET: STRONG_SECRET,
      JWT_ALGORITHM: 'EdDSA',
      JWT_PREVIOUS_SECRETS: ' old-one , old-two@1770000000 ',
      JWT_PREVIOUS_PUBLIC_KEYS: `${pem.replace(/\n/g, '\\n')}${pem}`,
      SERVICE_CLIENTS: 'orders:s3cret:with-colon, billing:other',
    });
    expect(config.signing.algorithm).toBe('EdDSA');
    expect(config.signing.previousSecrets).toEqual([
      { secret: 'old-one', retiredAt: null },
      { secret: 'old-two', retiredAt: 1770000000 },
    ]);
    expect(config.signing.previousPublicKeys).toEqual([pem, pem]);
    expect(config.introspection).toEqual({
      clients: [
        { id: 'orders', secret: 's3cret:with-colon' },
        { id: 'billing', secret: 'other' },
      ],
      ratePerMinute: 60000,
      tokenRatePerMinute: 600,
    });
    expect(() => parseEnvironment({ JWT_ALGORITHM: 'RS256' })).toThrow(/JWT_ALGORITHM/);
    try {
      parseEnvironment({ SERVICE_CLIENTS: 'orders-without-secret-but-long-value' });
      throw new Error('expected a refusal');
    } catch (error) {
      expect((error as Error).message).toContain('SERVICE_CLIENTS=(hidden)');
      expect((error as Error).message).not.toContain('orders-without');
    }
  });

  it('takes ISSUER for the tokens and discovery, APP_URL when unset, without a trailing slash', () => {
    expect(build({ JWT_SECRET: STRONG_SECRET }).http.issuer).toBe('http://localhost:3000');
    expect(build({ JWT_SECRET: STRONG_SECRET, APP_URL: 'https://app.example.com/' }).http.issuer).toBe(
      'https://app.example.com',
    );
    expect(build({ JWT_SECRET: STRONG_SECRET, ISSUER: 'https://auth.example.com/' }).http.issuer).toBe(
      'https://auth.example.com',
    );
    expect(() => parseEnvironment({ ISSUER: 'not a url' })).toThrow(/ISSUER/);
  });

  it('refuses a missing or short JWT_SECRET in production', () => {
    expect(() => build({ ...PRODUCTION_ENVIRONMENT })).toThrow(ConfigurationError);
    expect(() => build({ ...PRODUCTION_ENVIRONMENT, JWT_SECRET: 'a'.repeat(31) })).toThrow(/too short/);
    expect(build({ ...PRODUCTION_ENVIRONMENT, JWT_SECRET: STRONG_SECRET }).jwt.secret).toBe(STRONG_SECRET);
  });

  it.each([
    ['a'.repeat(64)],
    ['passwordpasswordpasswordpassword'],
    ['qwertyuiopqwertyuiopqwertyuiopqwertyuiop'],
    ['abcdefghijklmnopqrstuvwxyz0123456789'],
    ['12345678901234567890123456789012'],
  ])('refuses the guessable JWT_SECRET %j in production, saying how to fix it', (secret) => {
    expect(() => build({ ...PRODUCTION_ENVIRONMENT, JWT_SECRET: secret })).toThrow(ConfigurationError);
    expect(() => build({ ...PRODUCTION_ENVIRONMENT, JWT_SECRET: secret })).toThrow(
      /JWT_SECRET is guessable.*openssl rand/,
    );
  });

  it("accepts a 32-byte random base64 JWT_SECRET in production, and the test suite's secret", () => {
    const random = randomBytes(32).toString('base64');
    expect(build({ ...PRODUCTION_ENVIRONMENT, JWT_SECRET: random }).jwt.secret).toBe(random);
    expect(build({ ...PRODUCTION_ENVIRONMENT, JWT_SECRET: TEST_JWT_SECRET }).isProduction).toBe(true);
  });

  it('refuses a DATA_KEYS entry under 32 bytes in production, and reads the ring first-to-last', () => {
    const short = () =>
      build({ ...PRODUCTION_ENVIRONMENT, JWT_SECRET: STRONG_SECRET, DATA_KEYS: `${'k'.repeat(40)},short-key` });
    expect(short).toThrow(ConfigurationError);
    expect(short).toThrow(/DATA_KEYS entry 2 is shorter than 32 bytes/);
    const ring = build({
      ...PRODUCTION_ENVIRONMENT,
      JWT_SECRET: STRONG_SECRET,
      DATA_KEYS: ` ${'k'.repeat(40)} , ${'m'.repeat(32)}`,
    });
    expect(ring.dataKeys).toEqual({ roots: ['k'.repeat(40), 'm'.repeat(32)], fromJwtSecrets: false });
    expect(build({ APP_ENV: 'development', JWT_SECRET: STRONG_SECRET, DATA_KEYS: 'short' }).dataKeys.roots).toEqual([
      'short',
    ]);
  });

  it('without DATA_KEYS, the ring is JWT_SECRET then the previous secrets, so data sealed before keeps opening', () => {
    const previous = 'p'.repeat(40);
    const config = build({ JWT_SECRET: STRONG_SECRET, JWT_PREVIOUS_SECRETS: `${previous}@1700000000` });
    expect(config.dataKeys).toEqual({ roots: [STRONG_SECRET, previous], fromJwtSecrets: true });
  });

  it('judges the secret only in production', () => {
    expect(build({ APP_ENV: 'staging', JWT_SECRET: 'a'.repeat(64) }).jwt.secret).toBe('a'.repeat(64));
  });

  it('refuses SMS_TRANSPORT=log in production, naming the transports to use', () => {
    const attempt = () => build({ APP_ENV: 'production', JWT_SECRET: STRONG_SECRET });
    expect(attempt).toThrow(ConfigurationError);
    expect(attempt).toThrow(/SMS_TRANSPORT=log writes one-time codes to the log: set SMS_TRANSPORT=webhook/);
    expect(build({ APP_ENV: 'development', JWT_SECRET: STRONG_SECRET }).sms.transport).toBe('log');
  });

  it.each([['SEED_ADMIN_PASSWORD'], ['SEED_USER_PASSWORD']])('refuses a common %s in production', (name) => {
    const attempt = () => build({ ...PRODUCTION_ENVIRONMENT, JWT_SECRET: STRONG_SECRET, [name]: 'Password123' });
    expect(attempt).toThrow(ConfigurationError);
    expect(attempt).toThrow(new RegExp(`${name} is on the list of common passwords: choose a long random one`));
    expect(() =>
      build({ ...PRODUCTION_ENVIRONMENT, JWT_SECRET: STRONG_SECRET, [name]: 'Plum-Orbit-Lantern-42' }),
    ).not.toThrow();
    expect(build({ APP_ENV: 'development', [name]: 'Password123' }).isProduction).toBe(false);
  });

  it('refuses the embedded database in production unless ALLOW_EMBEDDED_DATABASE_IN_PRODUCTION says so', () => {
    const { DATABASE_URL: _server, ...embedded } = PRODUCTION_ENVIRONMENT;
    const attempt = () => build({ ...embedded, JWT_SECRET: STRONG_SECRET });
    expect(attempt).toThrow(ConfigurationError);
    expect(attempt).toThrow(
      /DATABASE_URL is unset, so production would run on the embedded database.*set DATABASE_URL to a PostgreSQL server, or ALLOW_EMBEDDED_DATABASE_IN_PRODUCTION=true/,
    );
    const onPurpose = { ...embedded, JWT_SECRET: STRONG_SECRET, ALLOW_EMBEDDED_DATABASE_IN_PRODUCTION: 'true' };
    expect(build(onPurpose).isProduction).toBe(true);
    expect(() => build({ ...onPurpose, ALLOW_EMBEDDED_DATABASE_IN_PRODUCTION: 'false' })).toThrow(
      /ALLOW_EMBEDDED_DATABASE_IN_PRODUCTION/,
    );
    expect(build({ APP_ENV: 'staging', JWT_SECRET: STRONG_SECRET }).isProduction).toBe(false);
  });

  it('names every production problem at once, and never the secret itself', () => {
    try {
      build({ APP_ENV: 'production', JWT_SECRET: 'b'.repeat(40), SEED_ADMIN_PASSWORD: 'iloveyou1' });
      throw new Error('accepted');
    } catch (error) {
      const message = (error as Error).message;
      for (const name of ['JWT_SECRET', 'SMS_TRANSPORT', 'SEED_ADMIN_PASSWORD', 'DATABASE_URL'])
        expect(message).toContain(name);
      expect(message).not.toContain('b'.repeat(40));
      expect(message).not.toContain('iloveyou1');
    }
  });

  it('reads DEFAULT_PHONE_REGION as an ISO 3166 region, and refuses anything else', () => {
    expect(build({ JWT_SECRET: STRONG_SECRET }).defaultPhoneRegion).toBeUndefined();
    expect(build({ JWT_SECRET: STRONG_SECRET, DEFAULT_PHONE_REGION: 'DE' }).defaultPhoneRegion).toBe('DE');
    expect(build({ JWT_SECRET: STRONG_SECRET, DEFAULT_PHONE_REGION: ' gb ' }).defaultPhoneRegion).toBe('GB');
    expect(build({ JWT_SECRET: STRONG_SECRET, DEFAULT_PHONE_REGION: '' }).defaultPhoneRegion).toBeUndefined();
    for (const region of ['XX', 'DEU', 'Germany', '49']) {
      expect(() => build({ JWT_SECRET: STRONG_SECRET, DEFAULT_PHONE_REGION: region })).toThrow(/DEFAULT_PHONE_REGION/);
    }
  });

  it('generates a random secret outside production when none is set', () => {
    const first = build({ APP_ENV: 'development' });
    const second = build({ APP_ENV: 'development' });
    expect(first.jwt.secretWasGenerated).toBe(true);
    expect(Buffer.byteLength(first.jwt.secret)).toBeGreaterThanOrEqual(32);
    expect(first.jwt.secret).not.toBe(second.jwt.secret);
  });

  it('turns development conveniences on only for APP_ENV=development exactly', () => {
    expect(build({ APP_ENV: 'development' }).isDevelopment).toBe(true);
    expect(build({}).isDevelopment).toBe(false);
    expect(build({ APP_ENV: 'test' }).isDevelopment).toBe(false);
    expect(build({ ...PRODUCTION_ENVIRONMENT, JWT_SECRET: STRONG_SECRET }).isDevelopment).toBe(false);
  });

  it('treats empty values as unset', () => {
    const config = build({ JWT_SECRET: STRONG_SECRET, DATABASE_URL: '', REDIS_URL: ' ' });
    expect(config.database.url).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
  });

  it('splits CORS_ORIGINS into a list', () => {
    expect(
      build({ JWT_SECRET: STRONG_SECRET, CORS_ORIGINS: 'https://a.example, https://b.example,' }).http.corsOrigins,
    ).toEqual(['https://a.example', 'https://b.example']);
  });

  it('caps admin list requests per caller at 4 and keeps audit events 365 days by default', () => {
    expect(build({ JWT_SECRET: STRONG_SECRET }).adminLists).toEqual({ concurrency: 4 });
    expect(build({ JWT_SECRET: STRONG_SECRET }).audit).toEqual({ retentionDays: 365 });
    const tuned = build({ JWT_SECRET: STRONG_SECRET, ADMIN_LIST_CONCURRENCY: '2', AUDIT_RETENTION_DAYS: '30' });
    expect([tuned.adminLists.concurrency, tuned.audit.retentionDays]).toEqual([2, 30]);
    expect(() => build({ ADMIN_LIST_CONCURRENCY: '0' })).toThrow(/ADMIN_LIST_CONCURRENCY/);
    expect(() => build({ AUDIT_RETENTION_DAYS: 'forever' })).toThrow(/AUDIT_RETENTION_DAYS/);
  });
});
