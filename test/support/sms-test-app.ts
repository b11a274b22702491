import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DataSource } from 'typeorm';
import type { TestDatabase } from './databases.mjs';
import { createIsolatedDatabase } from './isolated-database.js';
import { SmsReceiver } from './sms-receiver.js';
import { createTestApp } from './test-app.js';
import { testDataSource } from './test-database.js';

export interface SmsTestApp {
  database: TestDatabase;
  db: DataSource;
  sms: SmsReceiver;
  app: NestFastifyApplication;
}

/**
 * For a describe block: an app on a seeded database of its own, both login methods on, every SMS
 * delivered to a local receiver, no resend cooldown; `env` adds or overrides variables. The
 * returned object is filled by the hooks registered here, which run before the caller's own.
 */
export function smsTestApp(env: Record<string, string> = {}): SmsTestApp {
  const fixture = {} as SmsTestApp;
  beforeAll(async () => {
    fixture.database = await createIsolatedDatabase({ seed: true });
    fixture.db = testDataSource(fixture.database.url);
    await fixture.db.initialize();
    fixture.sms = await new SmsReceiver().start();
    fixture.app = await createTestApp({
      env: {
        DATABASE_URL: fixture.database.url,
        AUTH_EMAIL_PASSWORD: 'true',
        AUTH_MOBILE_OTP: 'true',
        SMS_TRANSPORT: 'webhook',
        SMS_WEBHOOK_URL: fixture.sms.url,
        OTP_RESEND_SECONDS: '0',
        ...env,
      },
    });
  });
  afterAll(async () => {
    await fixture.app?.close();
    await fixture.sms?.stop();
    if (fixture.db?.isInitialized) await fixture.db.destroy();
    await fixture.database?.drop();
  });
  return fixture;
}
