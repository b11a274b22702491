import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser, sleep, uniqueMobile } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import type { SmsReceiver } from '../support/sms-receiver.js';

/**
 * The console's second step for an administrator with an authenticator app and a mobile: no SMS
 * is sent until the person picks the SMS and asks for it, in headless Chromium.
 */
describe('the console asks for the second-factor SMS only when the person wants it', () => {
  const fixture = useTestApp({
    sms: true,
    listen: true,
    env: { AUTH_EMAIL_PASSWORD: 'true', AUTH_MOBILE_OTP: 'true', OTP_RESEND_SECONDS: '0' },
  });
  let app: NestFastifyApplication;
  let db: DataSource;
  let sms: SmsReceiver;
  let browser: Browser;

  beforeAll(async () => {
    ({ app, db, sms } = fixture);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('offers the app first, and texts a code on the button; that code signs in', async () => {
    const mobile = uniqueMobile();
    const admin = await registerUser(app, { mobile });
    await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = 'admin'`, [
      admin.id,
    ]);
    const authed = (route: string, body: object = {}) =>
      request(app.getHttpServer()).post(route).set('authorization', `Bearer ${admin.tokens.access_token}`).send(body);
    const started = await authed('/api/account/totp');
    const totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
    expect((await authed('/api/account/totp/confirm', { code: totp.generate() })).status).toBe(200);

    const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    // Closed at the end: an open console page keeps a connection to the service, and the app's
    // close (the fixture's afterAll, which runs before this file's) would wait for it.
    const context = await browser.newContext();
    try {
      await signInThroughTheConsole(await context.newPage());
    } finally {
      await context.close();
    }

    async function signInThroughTheConsole(page: Page): Promise<void> {
      await page.goto(`${baseUrl}/admin`);
      await page.getByLabel('Email').fill(admin.email);
      await page.getByLabel('Password').fill(admin.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('textbox', { name: 'Code from the authenticator app' }).waitFor();
      await page.getByRole('radio', { name: 'Code sent by SMS' }).check();
      const send = page.getByRole('button', { name: /^Text a code to / });
      await send.waitFor();
      await sleep(300);
      expect(sms.to(mobile)).toHaveLength(0);

      await send.click();
      await page.getByText(/^A code was sent to /).waitFor();
      await page.getByRole('textbox', { name: 'Code sent by SMS' }).fill(await sms.codeFor(mobile));
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.getByRole('navigation', { name: 'Screens' }).waitFor();
      expect(sms.to(mobile)).toHaveLength(1);
    }
  }, 120_000);
});
