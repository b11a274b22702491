import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { registerUser, type RegisteredUser } from '../support/auth-factory.js';
import { deviceWithAuthenticator, launchChromium } from '../support/chromium.js';
import { registerClient } from '../support/clients.js';
import { freePort } from '../support/free-port.js';
import { createTestApp } from '../support/test-app.js';
import { ProviderBrowser, formFields, pkce } from './provider-browser.js';

const CLIENT_ID = 'passkey-web';

/**
 * The provider's second-factor page offers "Use a passkey" to an account that has one, in Debian's
 * Chromium with a virtual authenticator (DevTools Protocol `WebAuthn`): the passkey added on the
 * account security page answers the challenge, and the browser comes back to the client with a
 * code. The page's scripts are same-origin files under `script-src 'self'`; every policy refusal the
 * browser reports fails the test. A forged answer is refused as the API refuses it.
 */
describe("the provider's sign-in pages: Use a passkey", () => {
  let app: NestFastifyApplication;
  let browser: Browser;
  let baseUrl: string;
  let redirectUri: string;
  let secret: string;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;
    redirectUri = `${baseUrl}/callback`;
    app = await createTestApp({ env: { APP_URL: baseUrl, ISSUER: baseUrl } });
    await app.listen(port, '127.0.0.1');
    secret = (await registerClient(app, { id: CLIENT_ID, name: 'Web app', redirectUris: [redirectUri] }))!;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** Adds a passkey on the account security page, as its holder does. */
  async function addPasskey(page: Page, user: RegisteredUser): Promise<void> {
    await page.goto(`${baseUrl}/account/security`);
    await page.fill('#email', user.email);
    await page.fill('#password', user.password);
    await page.click('#password-sign-in');
    await page.locator('#who', { hasText: user.email }).waitFor();
    await page.fill('#passkey-name', 'Laptop');
    await page.click('#add-passkey');
    await page.locator('#outcome', { hasText: 'Passkey added.' }).waitFor();
  }

  function authorizeUrl(challenge: string): string {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: redirectUri,
      scope: 'openid email',
      state: 'state-1',
      nonce: 'nonce-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    return `${baseUrl}/api/auth/authorize?${query.toString()}`;
  }

  it('after the password, the passkey answers the second factor and the client gets its code', async () => {
    const user = await registerUser(app);
    const { context, page, problems } = await deviceWithAuthenticator(browser);
    try {
      await addPasskey(page, user);
      // The client's page is not served here: the address the browser comes back to is what counts.
      const atClient = (url: URL) => url.href.startsWith(`${redirectUri}?`);
      const pair = pkce();
      await page.goto(authorizeUrl(pair.challenge));
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      const secondFactor = page.waitForResponse((res) => res.url().endsWith('/api/auth/authorize/login'));
      await page.getByRole('button', { name: 'Sign in' }).click();
      expect((await secondFactor).headers()['content-security-policy']).toContain("script-src 'self'");
      await page.getByLabel('Code').waitFor();
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await page.waitForURL(atClient);
      const arrived = new URL(page.url());

      expect(arrived.searchParams.get('state')).toBe('state-1');
      expect(arrived.searchParams.get('iss')).toBe(baseUrl);
      const issued = await request(app.getHttpServer())
        .post('/api/auth/token')
        .type('form')
        .auth(CLIENT_ID, secret)
        .send({
          grant_type: 'authorization_code',
          code: arrived.searchParams.get('code')!,
          redirect_uri: redirectUri,
          code_verifier: pair.verifier,
        });
      expect(issued.status).toBe(200);
      const idToken = decodeJwt(issued.body.id_token);
      expect(idToken.email).toBe(user.email);
      expect(idToken.amr).toEqual(expect.arrayContaining(['pwd', 'mfa']));
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('a forged passkey answer is refused on the page with the API message, and no code is given', async () => {
    const user = await registerUser(app);
    const { context, page } = await deviceWithAuthenticator(browser);
    try {
      await addPasskey(page, user);
    } finally {
      await context.close();
    }
    const pages = new ProviderBrowser(app);
    const pair = pkce();
    const signInPage = await pages.authorize(Object.fromEntries(new URL(authorizeUrl(pair.challenge)).searchParams));
    const challenge = await pages.signIn(signInPage, user.email, user.password);
    expect(challenge.status).toBe(200);
    expect(challenge.text).toContain('Use a passkey');
    const { action, fields } = formFields(challenge.text, '/verify');
    const forged = {
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' },
      clientExtensionResults: {},
    };
    const refused = await pages.post(action, { ...fields, code: '', assertion: JSON.stringify(forged) });
    expect(refused.status).toBe(401);
    expect(refused.headers.location).toBeUndefined();
    expect(refused.text).toContain('role="alert"');
    const garbage = await pages.post(action, { ...fields, code: '', assertion: '{"not":"an answer"}' });
    expect(garbage.status).toBe(401);
    expect(garbage.headers.location).toBeUndefined();
  }, 60_000);

  it("a page without the passkey button runs no script; the button's script is served to every page alike", async () => {
    const pages = new ProviderBrowser(app);
    const pair = pkce();
    const page = await pages.authorize(Object.fromEntries(new URL(authorizeUrl(pair.challenge)).searchParams));
    expect(page.text).not.toContain('Use a passkey');
    expect(page.headers['content-security-policy']).not.toContain('script-src');
    const script = await request(app.getHttpServer()).get('/api/auth/authorize/passkey.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^application\/javascript/);
  });
});
