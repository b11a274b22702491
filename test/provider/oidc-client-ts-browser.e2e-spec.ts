import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Browser, Page, Response as PageResponse } from 'playwright-core';
import request from 'supertest';
import { me, registerUser } from '../support/auth-factory.js';
import { launchChromium } from '../support/chromium.js';
import { freePort } from '../support/free-port.js';
import { startProviderService, type ProviderService } from '../support/provider-service.js';
import { providerRecipe } from './doc-recipes.js';

const MODULES = path.resolve(import.meta.dirname, '../../node_modules');
const CLIENT_ID = 'spa';

/**
 * oidc-client-ts (the registry's package, its ES module build) in Debian's Chromium, as a public
 * client on another origin than the service, which is started as the README says (`npm start`,
 * built) with the client registered by the CLI command of the recipe: the recipe of docs/openid-provider.md, served as
 * written but for the issuer's address, signs in through the provider's pages with code and PKCE,
 * reads userinfo, renews with the refresh token and signs out with RP-initiated logout.
 */
describe('oidc-client-ts in Chromium as a public client of the started service (the docs recipe)', () => {
  let provider: ProviderService;
  let site: Server;
  let browser: Browser;
  let issuer: string;
  let origin: string;

  beforeAll(async () => {
    provider = await startProviderService();
    issuer = provider.issuer;
    const files = providerRecipe('Recipe: `oidc-client-ts` in a browser');
    expect(Object.keys(files).sort()).toEqual(['app.js', 'index.html']);
    const sitePort = await freePort();
    origin = `http://localhost:${sitePort}`;
    expect(files['app.js']).toContain("authority: 'https://auth.example.com'");
    const served: Record<string, [string, string]> = {
      '/': ['text/html', files['index.html']],
      '/callback.html': ['text/html', files['index.html']],
      '/app.js': ['text/javascript', files['app.js'].replace('https://auth.example.com', issuer)],
      '/modules/oidc-client-ts.js': [
        'text/javascript',
        readFileSync(path.join(MODULES, 'oidc-client-ts/dist/esm/oidc-client-ts.js'), 'utf8'),
      ],
      '/modules/jwt-decode.js': [
        'text/javascript',
        readFileSync(path.join(MODULES, 'jwt-decode/build/esm/index.js'), 'utf8'),
      ],
    };
    site = createServer((req, res) => {
      const file = served[new URL(req.url ?? '/', origin).pathname];
      if (!file) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': `${file[0]}; charset=utf-8` }).end(file[1]);
    });
    await new Promise<void>((resolve) => site.listen(sitePort, '127.0.0.1', resolve));

    await provider.createClient({
      id: CLIENT_ID,
      name: 'Single-page app',
      public: true,
      redirectUris: [`${origin}/callback.html`],
      postLogoutRedirectUris: [`${origin}/`],
    });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await provider?.stop();
    await new Promise((resolve) => site?.close(resolve));
  });

  /** What the page asked the service, in order: method, path, grant type, status. */
  function recordCalls(page: Page): string[] {
    const calls: string[] = [];
    page.on('response', (res: PageResponse) => {
      const url = new URL(res.url());
      if (url.origin !== issuer || res.request().method() === 'OPTIONS') return;
      const grant = new URLSearchParams(res.request().postData() ?? '').get('grant_type');
      calls.push(`${res.request().method()} ${url.pathname}${grant ? ` ${grant}` : ''} ${res.status()}`);
    });
    return calls;
  }

  /** The tokens oidc-client-ts keeps for the signed-in person. */
  async function storedUser(page: Page): Promise<{ access_token: string; refresh_token: string; id_token: string }> {
    const stored = await page.evaluate((key) => localStorage.getItem(key), `oidc.user:${issuer}:${CLIENT_ID}`);
    expect(stored).not.toBeNull();
    return JSON.parse(stored!);
  }

  it('signs in with code and PKCE, reads userinfo, renews with the refresh token and signs out', async () => {
    const user = await registerUser(issuer);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const calls = recordCalls(page);
    try {
      await page.goto(`${origin}/`);
      await page.locator('#status', { hasText: 'Signed out' }).waitFor();

      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${issuer}/api/auth/authorize?**`);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#status', { hasText: `Signed in as ${user.email}` }).waitFor();
      expect(page.url()).toBe(`${origin}/`);
      expect(calls).toEqual(
        expect.arrayContaining([
          'GET /.well-known/openid-configuration 200',
          'POST /api/auth/token authorization_code 200',
          'GET /api/auth/userinfo 200',
        ]),
      );
      const first = await storedUser(page);
      expect((await me(issuer, first.access_token)).status).toBe(200);

      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.locator('#status', { hasText: `Renewed for ${user.email}` }).waitFor();
      expect(calls).toContain('POST /api/auth/token refresh_token 200');
      const renewed = await storedUser(page);
      expect(renewed.refresh_token).not.toBe(first.refresh_token);
      expect((await me(issuer, renewed.access_token)).status).toBe(200);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${origin}/`);
      await page.locator('#status', { hasText: 'Signed out' }).waitFor();
      expect(calls.some((call) => call.startsWith('GET /api/auth/authorize/end-session 302'))).toBe(true);
      expect((await me(issuer, renewed.access_token)).status).toBe(401);
      const refused = await request(issuer)
        .post('/api/auth/token')
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: renewed.refresh_token, client_id: CLIENT_ID });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('invalid_grant');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
