import { buildAppConfig, type AppConfig } from '../../src/config/app-config.js';
import { parseEnvironment } from '../../src/config/environment.js';

/** A secret only tests use; 32+ bytes so production rules would accept it too. */
export const TEST_JWT_SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

/**
 * What production asks besides a strong JWT_SECRET before it accepts a configuration: one-time
 * codes that do not go to the log (an SMS webhook) and a PostgreSQL server rather than the embedded
 * database. Nothing here is reached: for tests that build a production configuration.
 */
export const PRODUCTION_ENVIRONMENT = {
  APP_ENV: 'production',
  SMS_TRANSPORT: 'webhook',
  SMS_WEBHOOK_URL: 'https://sms.example.com/send',
  DATABASE_URL: 'postgres://auth@db.example.com:5432/auth',
};

/**
 * The configuration a test app runs with: migrations already applied (test databases are copies
 * of a migrated template), and Argon2 made cheap through configuration (one test proves the
 * production defaults). An override of `undefined` removes the variable, so the service's own
 * default applies. `DATABASE_URL` is the caller's to give (`createTestApp` gives the file's).
 */
export function createTestConfig(overrides: Record<string, string | undefined> = {}): AppConfig {
  const env: Record<string, string | undefined> = {
    APP_ENV: 'test',
    JWT_SECRET: TEST_JWT_SECRET,
    DB_MIGRATIONS_RUN: 'false',
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_ITERATIONS: '1',
    LOG_LEVEL: 'error',
    // The suite signs up and logs in a great deal from 127.0.0.1; test/limits/ sets small limits itself.
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_GLOBAL_PER_MINUTE: '100000',
    ...overrides,
  };
  return buildAppConfig(
    parseEnvironment(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined))),
  );
}
