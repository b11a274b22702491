import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser, sleep, uniqueMobile } from '../support/auth-factory.js';
import { deviceWithAuthenticator as newDevice, launchChromium } from '../support/chromium.js';
import { SMS_LOGINS } from '../support/fixture.js';
import { freePort } from '../support/free-port.js';
import { grantRoles } from '../support/rbac-factory.js';
import { SmsReceiver } from '../support/sms-receiver.js';
import { createTestApp } from '../support/test-app.js';
import { fileDatabase, testDataSource } from '../support/test-database.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts');

/**
 * Passkeys with a real authenticator: Chromium's virtual authenticator (DevTools Protocol
 * `WebAuthn` domain: CTAP2, resident keys, user verification) on the service's security page.
 * `http://localhost` is a secure context, so WebAuthn runs without TLS; the RP ID is `localhost`,
 * APP_URL's host. Every Content-Security-Policy refusal the browser reports fails the test.
 */
describe('passkeys in headless Chromium with a virtual authenticator', () => {
  let app: NestFastifyApplication;
  let sms: SmsReceiver;
  let db: DataSource;
  let browser: Browser;
  let baseUrl: string;
  let problems: string[];

  beforeAll(async () => {
    sms = await new SmsReceiver().start();
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;
    const database = await fileDatabase();
    app = await createTestApp({
      env: {
        ...SMS_LOGINS,
        DATABASE_URL: database.url,
        SMS_TRANSPORT: 'webhook',
        SMS_WEBHOOK_URL: sms.url,
        APP_URL: baseUrl,
      },
    });
    await app.listen(port, '127.0.0.1');
    db = testDataSource(database.url);
    await db.initialize();
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    if (db?.isInitialized) await db.destroy();
    await sms?.stop();
  });

  /** A browser profile of its own with a virtual authenticator; its page's problems are the test's `problems`. */
  async function deviceWithAuthenticator(): Promise<{ context: BrowserContext; page: Page }> {
    const device = await newDevice(browser);
    problems = device.problems;
    return device;
  }

  async function addPasskey(page: Page, name: string): Promise<void> {
    await page.fill('#passkey-name', name);
    await page.click('#add-passkey');
    await page.locator('#outcome', { hasText: 'Passkey added.' }).waitFor();
    await page.locator('#passkeys li.passkey', { hasText: name }).waitFor();
  }

  async function signOut(page: Page): Promise<void> {
    await page.click('#sign-out');
    await page.locator('#outcome', { hasText: 'Signed out.' }).waitFor();
    expect(await page.locator('#signed-in').isHidden()).toBe(true);
  }

  async function signInWithPasskey(page: Page, email: string): Promise<void> {
    await page.click('#passkey-sign-in');
    await page.locator('#who', { hasText: email }).waitFor();
    expect(await page.locator('#signed-in').isVisible()).toBe(true);
  }

  it('registers a passkey on the page, signs out, and signs in with it without a password', async () => {
    const user = await registerUser(app);
    const { context, page } = await deviceWithAuthenticator();
    try {
      const response = await page.goto(`${baseUrl}/account/security`);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      await page.fill('#email', user.email);
      await page.fill('#password', user.password);
      await page.click('#password-sign-in');
      await page.locator('#who', { hasText: user.email }).waitFor();

      await addPasskey(page, 'Chromium virtual authenticator');
      await signOut(page);
      // No email typed: the discoverable credential names the account.
      await page.fill('#email', '');
      await signInWithPasskey(page, user.email);
      await page.screenshot({ path: path.join(ARTIFACTS, 'passkeys-signed-in.png'), fullPage: true });

      const [row] = await db.query(`SELECT name, last_used_at, transports FROM passkeys WHERE user_id = $1`, [user.id]);
      expect(row.name).toBe('Chromium virtual authenticator');
      expect(row.last_used_at).not.toBeNull();
      // The password alone no longer signs this account in: the passkey is asked for.
      const login = await request(app.getHttpServer())
        .post('/api/auth/login')
        .send({ email: user.email, password: user.password });
      expect(login.body.data).toMatchObject({ requires_otp: true, methods: expect.arrayContaining(['passkey']) });

      // And as the second factor of a password sign-in on the page.
      await signOut(page);
      await page.fill('#email', user.email);
      await page.fill('#password', user.password);
      await page.click('#password-sign-in');
      await page.locator('#second-factor-passkey').waitFor({ state: 'visible' });
      await page.click('#second-factor-passkey');
      await page.locator('#who', { hasText: user.email }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('signs an administrator in with a passkey and no SMS', async () => {
    const mobile = uniqueMobile();
    const admin = await registerUser(app, { mobile });
    const [role] = await db.query(`SELECT id FROM roles WHERE name = 'admin'`);
    await grantRoles(db, admin.id, [role.id]);
    const { context, page } = await deviceWithAuthenticator();
    try {
      await page.goto(`${baseUrl}/account/security`);
      // Before the passkey: the password and an SMS code, as for every administrator.
      await page.fill('#email', admin.email);
      await page.fill('#password', admin.password);
      await page.click('#password-sign-in');
      await page.locator('#code-form').waitFor({ state: 'visible' });
      const code = await sms.codeFor(mobile);
      await page.fill('#code', code);
      await page.click('#code-submit');
      await page.locator('#who', { hasText: admin.email }).waitFor();

      await addPasskey(page, 'Admin laptop');
      await signOut(page);
      const smsBefore = sms.to(mobile).length;
      await signInWithPasskey(page, admin.email);
      await sleep(300);
      expect(sms.to(mobile)).toHaveLength(smsBefore);
      const events: { type: string }[] = await db.query(
        `SELECT type FROM audit_events WHERE actor_id = $1 AND type = 'passkey.login'`,
        [admin.id],
      );
      expect(events).toHaveLength(1);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
