import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TOTP, URI } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { registerUser, sleep, uniqueMobile, type RegisteredUser } from '../support/auth-factory.js';
import { launchChromium } from '../support/chromium.js';
import { registerClient } from '../support/clients.js';
import { SMS_LOGINS } from '../support/fixture.js';
import { freePort } from '../support/free-port.js';
import { SmsReceiver } from '../support/sms-receiver.js';
import { createTestApp } from '../support/test-app.js';
import { pkce } from './provider-browser.js';

const CLIENT_ID = 'pages-web';
const STEP_MS = 30_000;
const PHONE = { width: 360, height: 640 };

/** Waits out the last seconds of a time step, so codes of adjacent steps stay valid through a test. */
async function awayFromStepEdge(): Promise<void> {
  const intoStep = Date.now() % STEP_MS;
  if (intoStep > STEP_MS - 8_000) await sleep(STEP_MS - intoStep + 500);
}

/**
 * The provider's sign-in pages as a person meets them: Debian's Chromium at a phone's width, every
 * second factor an account can have (an app's code, a recovery code, an SMS texted on request), the
 * lockout, and not one request to another origin than the service's before the browser is sent back
 * to the client.
 */
describe("the provider's sign-in pages in Chromium at a phone's width", () => {
  let app: NestFastifyApplication;
  let sms: SmsReceiver;
  let browser: Browser;
  let baseUrl: string;
  let redirectUri: string;

  beforeAll(async () => {
    sms = await new SmsReceiver().start();
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;
    redirectUri = `${baseUrl}/callback`;
    app = await createTestApp({
      env: {
        ...SMS_LOGINS,
        SMS_TRANSPORT: 'webhook',
        SMS_WEBHOOK_URL: sms.url,
        APP_URL: baseUrl,
        ISSUER: baseUrl,
        LOCKOUT_THRESHOLD: '3',
      },
    });
    await app.listen(port, '127.0.0.1');
    await registerClient(app, { id: CLIENT_ID, name: 'Web app', redirectUris: [redirectUri] });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await sms?.stop();
  });

  /** An account with an authenticator app (and its recovery codes), and a mobile when asked. */
  async function accountWithApp(mobile: string | null = null): Promise<{
    user: RegisteredUser;
    device: TOTP;
    recoveryCodes: string[];
  }> {
    const user = await registerUser(app, mobile ? { mobile } : {});
    await awayFromStepEdge();
    const auth = `Bearer ${user.tokens.access_token}`;
    const started = await request(app.getHttpServer()).post('/api/account/totp').set('authorization', auth).send({});
    expect(started.status).toBe(200);
    const device = URI.parse(started.body.data.otpauth_uri) as TOTP;
    const confirmed = await request(app.getHttpServer())
      .post('/api/account/totp/confirm')
      .set('authorization', auth)
      .send({ code: device.generate({ timestamp: Date.now() - STEP_MS }) });
    expect(confirmed.status).toBe(200);
    return { user, device, recoveryCodes: confirmed.body.data.recovery_codes };
  }

  /** A page at a phone's width that records every request to another origin than the service's. */
  async function phonePage(): Promise<{ page: Page; elsewhere: string[]; close: () => Promise<void> }> {
    const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    const elsewhere: string[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).origin !== baseUrl) elsewhere.push(req.url());
    });
    return { page, elsewhere, close: () => context.close() };
  }

  function authorizeUrl(): string {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: redirectUri,
      scope: 'openid email',
      state: 'state-pages',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    return `${baseUrl}/api/auth/authorize?${query.toString()}`;
  }

  /** Nothing wider than the phone's screen: no sideways scrolling. */
  async function fitsThePhone(page: Page): Promise<void> {
    const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
    expect(width).toBeLessThanOrEqual(PHONE.width);
  }

  async function password(page: Page, user: RegisteredUser): Promise<void> {
    await page.goto(authorizeUrl());
    await fitsThePhone(page);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function backAtTheClient(page: Page): Promise<URL> {
    await page.waitForURL((url) => url.href.startsWith(`${redirectUri}?`));
    const arrived = new URL(page.url());
    expect(arrived.searchParams.get('code')).toMatch(/.{20,}/);
    expect(arrived.searchParams.get('state')).toBe('state-pages');
    return arrived;
  }

  it("an authenticator app's code completes the sign-in, with no request to another origin", async () => {
    const { user, device } = await accountWithApp();
    const { page, elsewhere, close } = await phonePage();
    try {
      await password(page, user);
      await page.getByLabel('Code').waitFor();
      await fitsThePhone(page);
      expect(await page.getByRole('button', { name: 'Text me a code' }).count()).toBe(0);
      await page.getByLabel('Code').fill(device.generate());
      await page.getByRole('button', { name: 'Verify' }).click();
      await backAtTheClient(page);
      expect(elsewhere).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);

  it('a recovery code completes the sign-in in place of the app', async () => {
    const { user, recoveryCodes } = await accountWithApp();
    const { page, close } = await phonePage();
    try {
      await password(page, user);
      await page.getByLabel('Code').fill(recoveryCodes[0]);
      await page.getByRole('button', { name: 'Verify' }).click();
      await backAtTheClient(page);
    } finally {
      await close();
    }
  }, 60_000);

  it('an account with an app and a mobile gets an SMS only on "Text me a code", and that code completes it', async () => {
    const mobile = uniqueMobile();
    const { user } = await accountWithApp(mobile);
    const { page, elsewhere, close } = await phonePage();
    try {
      await password(page, user);
      await page.getByRole('button', { name: 'Text me a code' }).waitFor();
      await sleep(300);
      expect(sms.to(mobile)).toHaveLength(0);
      await page.getByRole('button', { name: 'Text me a code' }).click();
      await page.getByText(/Enter the code sent to/).waitFor();
      const code = await sms.codeFor(mobile);
      await page.getByLabel('Code').fill(code);
      await page.getByRole('button', { name: 'Verify' }).click();
      await backAtTheClient(page);
      expect(sms.to(mobile)).toHaveLength(1);
      expect(elsewhere).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);

  it('a fourth text for one sign-in is refused on the page (429), and the texted code still works', async () => {
    const mobile = uniqueMobile();
    const { user } = await accountWithApp(mobile);
    const { page, close } = await phonePage();
    try {
      await password(page, user);
      for (let sent = 1; sent <= 3; sent++) {
        await page.getByRole('button', { name: 'Text me a code' }).click();
        await page.getByText(/Enter the code sent to/).waitFor();
      }
      const refused = page.waitForResponse((res) => res.url().endsWith('/api/auth/authorize/send-sms'));
      await page.getByRole('button', { name: 'Text me a code' }).click();
      expect((await refused).status()).toBe(429);
      await expect(page.getByRole('alert').first().textContent()).resolves.toMatch(/Too many codes/);
      await sms.waitFor(mobile, 3);
      const code = await sms.codeFor(mobile);
      expect(sms.to(mobile)).toHaveLength(3);
      await page.getByLabel('Code').fill(code);
      await page.getByRole('button', { name: 'Verify' }).click();
      await backAtTheClient(page);
    } finally {
      await close();
    }
  }, 60_000);

  it('wrong passwords lock the account: the page says so with 429, and the right password waits too', async () => {
    const user = await registerUser(app);
    const { page, close } = await phonePage();
    try {
      await page.goto(authorizeUrl());
      const statuses: number[] = [];
      page.on('response', (res) => {
        if (res.url().endsWith('/api/auth/authorize/login')) statuses.push(res.status());
      });
      for (let attempt = 0; attempt < 4; attempt++) {
        await page.getByLabel('Email').fill(user.email);
        await page.getByLabel('Password').fill(`wrong-${attempt}-${user.password}`);
        const answered = page.waitForResponse((res) => res.url().endsWith('/api/auth/authorize/login'));
        await page.getByRole('button', { name: 'Sign in' }).click();
        await answered;
        await page.getByRole('alert').waitFor();
      }
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      const locked = page.waitForResponse((res) => res.url().endsWith('/api/auth/authorize/login'));
      await page.getByRole('button', { name: 'Sign in' }).click();
      expect((await locked).status()).toBe(429);
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      expect(statuses.slice(3)).toEqual([429, 429]);
      expect(page.url()).not.toContain('/callback');
      await fitsThePhone(page);
    } finally {
      await close();
    }
  }, 60_000);
});
