import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { chromium, type Browser, type Page, type Response as PageResponse } from 'playwright-core';
import request from 'supertest';
import { ClientsService } from '../../src/clients/index.js';
import { me, registerUser } from '../support/auth-factory.js';
import { createTestApp } from '../support/test-app.js';
import { freePort } from '../support/free-port.js';
import { providerRecipe } from './doc-recipes.js';

const MODULES = path.resolve(import.meta.dirname, '../../node_modules');
const CLIENT_ID = 'spa';

/**
 * oidc-client-ts (the registry's package, its ES module build) in Debian's Chromium, as a public
 * client on another origin than the service: the recipe of docs/openid-provider.md, served as
 * written but for the issuer's address, signs in through the provider's pages with code and PKCE,
 * reads userinfo, renews with the refresh token and signs out with RP-initiated logout.
 */
describe('oidc-client-ts in Chromium as a public client (the docs recipe)', () => {
  let app: NestFastifyApplication;
  let site: Server;
  let browser: Browser;
  let issuer: string;
  let origin: string;

  beforeAll(async () => {
    const files = providerRecipe('Recipe: `oidc-client-ts` in a browser');
    expect(Object.keys(files).sort()).toEqual(['app.js', 'index.html']);
    const [issuerPort, sitePort] = [await freePort(), await freePort()];
    issuer = `http://127.0.0.1:${issuerPort}`;
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

    app = await createTestApp({ env: { ISSUER: issuer } });
    await app.listen(issuerPort, '127.0.0.1');
    await app.get(ClientsService).register(
      CLIENT_ID,
      {
        name: 'Single-page app',
        type: 'public',
        redirectUris: [`${origin}/callback.html`],
        postLogoutRedirectUris: [`${origin}/`],
        firstParty: true,
        backchannelLogoutUri: null,
      },
      'admin',
    );
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
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
    const user = await registerUser(app);
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
      expect((await me(app, first.access_token)).status).toBe(200);

      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.locator('#status', { hasText: `Renewed for ${user.email}` }).waitFor();
      expect(calls).toContain('POST /api/auth/token refresh_token 200');
      const renewed = await storedUser(page);
      expect(renewed.refresh_token).not.toBe(first.refresh_token);
      expect((await me(app, renewed.access_token)).status).toBe(200);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${origin}/`);
      await page.locator('#status', { hasText: 'Signed out' }).waitFor();
      expect(calls.some((call) => call.startsWith('GET /api/auth/authorize/end-session 302'))).toBe(true);
      expect((await me(app, renewed.access_token)).status).toBe(401);
      const refused = await request(app.getHttpServer())
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
