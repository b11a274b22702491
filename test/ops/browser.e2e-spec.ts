import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';
import { loginTokens, registerUser } from '../support/auth-factory.js';
import { resetTokenFrom, SmtpSink } from '../support/smtp-sink.js';
import { createTestApp } from '../support/test-app.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts');
const NEW_PASSWORD = 'Saffron-Lighthouse-Pebble-58';

/**
 * A newcomer's first steps, in a real browser (Debian's Chromium, driven by playwright-core):
 * read and try the API in Swagger UI, and reset a password from the mailed link with the default
 * page. Every Content-Security-Policy refusal the browser reports fails the test.
 */
describe('in headless Chromium', () => {
  let app: NestFastifyApplication;
  let sink: SmtpSink;
  let browser: Browser;
  let baseUrl: string;
  let cspViolations: string[];

  beforeAll(async () => {
    sink = await SmtpSink.start();
    // APP_URL is the service itself, as with the defaults: the reset link opens this service.
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    app = await createTestApp({ env: { SMTP_URL: sink.url, OTP_RESEND_SECONDS: '0', APP_URL: baseUrl } });
    await app.listen(port, '127.0.0.1');
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await sink?.stop();
  });

  async function newPage(): Promise<Page> {
    const page = await browser.newPage();
    cspViolations = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => cspViolations.push(`page error: ${error.message}`));
    return page;
  }

  it('loads /docs, authorizes with a token from a real login, and runs GET /api/auth/me from the page', async () => {
    const user = await registerUser(app);
    const tokens = await loginTokens(app, user);
    const page = await newPage();
    try {
      // Swagger UI renders only the operations near the viewport: a deep link (`#/<tag>/<operationId>`)
      // scrolls to the operation and opens it, wherever it stands in a long document.
      await page.goto(`${baseUrl}/docs#/Auth/AuthController_me`);
      await page.locator('.swagger-ui .info .title').waitFor();
      await page
        .getByRole('button', { name: /Authorize/ })
        .first()
        .click();
      const dialog = page.locator('.dialog-ux .modal-ux');
      const bearer = dialog.locator('.auth-container', { has: page.locator('input[aria-label="auth-bearer-value"]') });
      await bearer.locator('input[aria-label="auth-bearer-value"]').fill(tokens.access_token);
      await bearer.getByRole('button', { name: 'Apply credentials' }).click();
      await dialog.getByText('Authorized').first().waitFor();
      await page.locator('.dialog-ux .close-modal').click();

      const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/api/auth/me"]') });
      // The dialog took the page back to the top: scroll down until the (still open) operation is drawn.
      for (let step = 0; step < 100 && (await operation.count()) === 0; step += 1) {
        await page.mouse.wheel(0, 300);
        await page.waitForTimeout(50);
      }
      await operation.getByRole('button', { name: 'Try it out' }).click();
      await operation.getByRole('button', { name: 'Execute' }).click();
      const status = operation.locator('.live-responses-table .response .response-col_status').first();
      await status.waitFor();
      expect((await status.innerText()).trim()).toBe('200');
      expect(await operation.locator('.live-responses-table .response').first().innerText()).toContain(user.email);
      await page.screenshot({ path: path.join(ARTIFACTS, 'docs-auth-me.png'), fullPage: true });
      expect(cspViolations).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('resets a password end to end from the mailed link, on the default reset page', async () => {
    const user = await registerUser(app);
    expect(
      (await request(app.getHttpServer()).post('/api/auth/forgot-password').send({ email: user.email })).status,
    ).toBe(200);
    const token = resetTokenFrom(await sink.waitForMail(user.email), baseUrl);
    const page = await newPage();
    try {
      await page.goto(`${baseUrl}/reset-password?token=${encodeURIComponent(token)}`);
      // The token leaves the address bar once read.
      expect(page.url()).toBe(`${baseUrl}/reset-password`);
      await page.fill('#password', NEW_PASSWORD);
      await page.fill('#password_confirmation', 'Not-The-Same-Password-1');
      await page.click('#submit');
      await page.locator('#outcome', { hasText: 'password_confirmation must match password' }).waitFor();

      await page.fill('#password_confirmation', NEW_PASSWORD);
      await page.click('#submit');
      await page.locator('#outcome', { hasText: 'Your password has been changed' }).waitFor();
      expect(await page.locator('#reset-form').isHidden()).toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, 'reset-password.png'), fullPage: true });
      expect(cspViolations).toEqual([]);
    } finally {
      await page.close();
    }
    expect(
      (await request(app.getHttpServer()).post('/api/auth/login').send({ email: user.email, password: NEW_PASSWORD }))
        .status,
    ).toBe(200);
    expect(
      (await request(app.getHttpServer()).post('/api/auth/login').send({ email: user.email, password: user.password }))
        .status,
    ).toBe(401);
  });

  it('says so when the link holds no token', async () => {
    const page = await newPage();
    try {
      await page.goto(`${baseUrl}/reset-password`);
      await page.locator('#outcome', { hasText: 'This link holds no reset token' }).waitFor();
      expect(await page.locator('#reset-form').isHidden()).toBe(true);
    } finally {
      await page.close();
    }
  });
});
