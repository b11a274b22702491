import { buildAppConfig, ConfigurationError } from './app-config.js';
import { InvalidEnvironmentError, parseEnvironment } from './environment.js';

const build = (env: Record<string, string>) => buildAppConfig(parseEnvironment(env));
const STRONG_SECRET = 'a'.repeat(32);

describe('configuration', () => {
  it('applies the contract\'s defaults', () => {
    const config = build({ JWT_SECRET: STRONG_SECRET });
    expect(config.http.port).toBe(3000);
    expect(config.jwt).toMatchObject({ accessTokenTtl: 900, refreshTokenTtl: 604800, sessionMaxAge: 2592000 });
    expect(config.resetTokenTtl).toBe(3600);
    expect(config.otp).toEqual({ length: 6, ttl: 300, resendSeconds: 60, hourlyCap: 10 });
    expect(config.loginMethods).toEqual({ emailPassword: true, mobileOtp: false });
    expect(config.passwordHashing).toEqual({ memoryKib: 19456, iterations: 2, parallelism: 1 });
    expect(config.limits).toEqual({ ratePerMinute: 30, globalRatePerMinute: 1200, lockoutThreshold: 10, lockoutSeconds: 900 });
    expect(config.http.bodyLimitBytes).toBe(16384);
    expect(config.sms.transport).toBe('log');
    expect(config.database.url).toBeUndefined();
    expect(config.database.dataDir).toMatch(/\/data$/);
  });

  it('reads numbers and booleans from strings', () => {
    const config = build({ JWT_SECRET: STRONG_SECRET, PORT: '8080', AUTH_MOBILE_OTP: 'true', AUTH_EMAIL_PASSWORD: '0' });
    expect(config.http.port).toBe(8080);
    expect(config.loginMethods).toEqual({ emailPassword: false, mobileOtp: true });
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

  it('refuses a missing or short JWT_SECRET in production', () => {
    expect(() => build({ APP_ENV: 'production' })).toThrow(ConfigurationError);
    expect(() => build({ APP_ENV: 'production', JWT_SECRET: 'a'.repeat(31) })).toThrow(/too short/);
    expect(build({ APP_ENV: 'production', JWT_SECRET: STRONG_SECRET }).jwt.secret).toBe(STRONG_SECRET);
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
    expect(build({ APP_ENV: 'production', JWT_SECRET: STRONG_SECRET }).isDevelopment).toBe(false);
  });

  it('treats empty values as unset', () => {
    const config = build({ JWT_SECRET: STRONG_SECRET, DATABASE_URL: '', REDIS_URL: ' ' });
    expect(config.database.url).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
  });

  it('splits CORS_ORIGINS into a list', () => {
    expect(build({ JWT_SECRET: STRONG_SECRET, CORS_ORIGINS: 'https://a.example, https://b.example,' }).http.corsOrigins).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
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
