import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DataSource } from 'typeorm';
import { SmsReceiver } from './sms-receiver.js';
import { SmtpSink } from './smtp-sink.js';
import { createTestApp, type TestAppOptions } from './test-app.js';
import { createDatabase, fileDatabase, testDataSource, type Template, type TestDatabase } from './test-database.js';

export interface DatabaseFixture {
  database: TestDatabase;
  /** A data source on it, for arranging rows and reading what the service stored. */
  db: DataSource;
}

export interface DatabaseFixtureOptions {
  /**
   * `'file'` (the default): the test file's database, shared by the file's fixtures. A template
   * name: a new copy of that template for this describe block alone, for tests that change what
   * others in the file rely on (login-method settings), or need no rows at all.
   */
  database?: 'file' | Template;
}

/**
 * For a describe block (or a whole file): a database and a data source on it, made before the
 * block's tests and closed after them. Fill-in object: its fields are set by the hook registered
 * here, which runs before the caller's own `beforeAll`s.
 */
export function useTestDatabase(options: DatabaseFixtureOptions = {}): DatabaseFixture {
  const fixture = {} as DatabaseFixture;
  beforeAll(() => openDatabase(fixture, options.database ?? 'file'));
  afterAll(() => closeDatabase(fixture, options.database ?? 'file'));
  return fixture;
}

export interface AppFixtureOptions extends Omit<TestAppOptions, 'env'>, DatabaseFixtureOptions {
  /** Variables over the test defaults (see `createTestApp`); the receivers below set their own. */
  env?: Record<string, string | undefined>;
  /** Mails go to a local SMTP server (`fixture.smtp`): `SMTP_URL`. */
  smtp?: boolean;
  /** SMS go to a local webhook receiver (`fixture.sms`): `SMS_TRANSPORT=webhook`, `SMS_WEBHOOK_URL`. */
  sms?: boolean;
  /**
   * Instances of the service on the one database, as behind a load balancer (`fixture.apps`): a
   * count, or each instance's variables over `env`.
   */
  instances?: number | Record<string, string | undefined>[];
  /** Each instance also listens on a loopback port (`app.getUrl()`), for clients besides supertest. */
  listen?: boolean;
}

export interface AppFixture extends DatabaseFixture {
  /** The first (often the only) instance. */
  app: NestFastifyApplication;
  apps: NestFastifyApplication[];
  smtp: SmtpSink;
  sms: SmsReceiver;
}

/**
 * For a describe block (or a whole file): the real service on a test database, with what the
 * block asked for around it, all built before the block's tests and closed after them. Fill-in
 * object, like `useTestDatabase`'s.
 */
export function useTestApp(options: AppFixtureOptions = {}): AppFixture {
  const { database = 'file', smtp, sms, instances = 1, listen, env, ...appOptions } = options;
  const fixture = { apps: [] as NestFastifyApplication[] } as AppFixture;
  beforeAll(async () => {
    await openDatabase(fixture, database);
    const receivers: Record<string, string> = {};
    if (smtp) {
      fixture.smtp = await SmtpSink.start();
      receivers.SMTP_URL = fixture.smtp.url;
    }
    if (sms) {
      fixture.sms = await new SmsReceiver().start();
      Object.assign(receivers, { SMS_TRANSPORT: 'webhook', SMS_WEBHOOK_URL: fixture.sms.url });
    }
    const each = typeof instances === 'number' ? Array.from({ length: instances }, () => ({})) : instances;
    for (const own of each) {
      const app = await createTestApp({
        ...appOptions,
        env: { ...receivers, DATABASE_URL: fixture.database.url, ...env, ...own },
      });
      fixture.apps.push(app);
      if (listen) await app.listen(0, '127.0.0.1');
    }
    fixture.app = fixture.apps[0];
  });
  afterAll(async () => {
    await Promise.all(fixture.apps.map(closeWithItsConnections));
    await fixture.sms?.stop();
    await fixture.smtp?.stop();
    await closeDatabase(fixture, database);
  });
  return fixture;
}

/**
 * Closes the app and every connection to it: a browser or client the file opened may still hold
 * a request open (the file's own afterAll, which would close it, runs after this one), and the
 * app's graceful close would wait for it until the hook's timeout.
 */
async function closeWithItsConnections(app: NestFastifyApplication): Promise<void> {
  const closing = app.close();
  (app.getHttpServer() as { closeAllConnections?: () => void }).closeAllConnections?.();
  await closing;
}

async function openDatabase(fixture: DatabaseFixture, database: 'file' | Template): Promise<void> {
  fixture.database = database === 'file' ? await fileDatabase() : await createDatabase(database);
  fixture.db = testDataSource(fixture.database.url);
  await fixture.db.initialize();
}

async function closeDatabase(fixture: Partial<DatabaseFixture>, database: 'file' | Template): Promise<void> {
  if (fixture.db?.isInitialized) await fixture.db.destroy();
  // The file's database outlives the block: the test environment drops it after the file.
  if (database !== 'file') await fixture.database?.drop();
}

/** Both login methods on and no send-otp cooldown: the set-up of the SMS and second-factor tests. */
export const SMS_LOGINS = { AUTH_EMAIL_PASSWORD: 'true', AUTH_MOBILE_OTP: 'true', OTP_RESEND_SECONDS: '0' };
