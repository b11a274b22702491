import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import request from 'supertest';
import { me, registerUser } from '../support/auth-factory.js';
import { launchChromium } from '../support/chromium.js';
import { freePort } from '../support/free-port.js';
import { startProviderService, type ProviderService } from '../support/provider-service.js';
import { providerRecipe } from './doc-recipes.js';

const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';

/** The server around the recipe: a port, logs, a page under /private that shows the claims (SSI). */
function httpdConf(folder: string, port: number): string {
  const asRoot = process.getuid?.() === 0;
  return `
ServerRoot ${folder}
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile ${folder}/httpd.pid
ErrorLog ${folder}/error.log
LogLevel warn auth_openidc:info
LoadModule mpm_prefork_module ${MODULES}/mod_mpm_prefork.so
LoadModule authn_core_module ${MODULES}/mod_authn_core.so
LoadModule authz_core_module ${MODULES}/mod_authz_core.so
LoadModule authz_user_module ${MODULES}/mod_authz_user.so
LoadModule include_module ${MODULES}/mod_include.so
${asRoot ? 'User www-data\nGroup www-data' : ''}
DocumentRoot ${folder}/www
<Directory ${folder}/www>
  Options +Includes
  Require all granted
</Directory>
<Files "*.html">
  ForceType text/html
</Files>
<Directory ${folder}/www/private>
  <Files "index.html">
    SetOutputFilter INCLUDES
  </Files>
</Directory>
Include ${folder}/auth_openidc.conf
# Not the recipe's: the pages see the refresh token too, so the test can ask the service about it.
OIDCPassRefreshToken On
`;
}

const PRIVATE_PAGE = `<!doctype html>
<title>Private</title>
<p id="email"><!--#echo var="OIDC_CLAIM_email" --></p>
<p id="name"><!--#echo var="OIDC_CLAIM_name" --></p>
<p id="remote-user"><!--#echo var="REMOTE_USER" --></p>
<p id="access-token"><!--#echo var="OIDC_access_token" --></p>
<p id="refresh-token"><!--#echo var="OIDC_refresh_token" --></p>
`;

/**
 * Debian's Apache with libapache2-mod-auth-openidc, a confidential client guarding /private with
 * the recipe of docs/openid-provider.md included as written, against the service started as the
 * README says (`npm start`, built) with the client registered by the recipe's CLI command: Chromium
 * visits the page, signs in at the provider's pages, sees the person's claims, renews the tokens
 * through the module's refresh URL, and signs out through the module's logout URL, which ends the
 * sign-in at the service too. Apache missing is a failure, not a skip (.ci/run
 * installs it).
 */
describe('Apache with mod_auth_openidc as a confidential client (the docs recipe)', () => {
  let provider: ProviderService;
  let apache: ChildProcess | undefined;
  let browser: Browser;
  let folder: string;
  let issuer: string;
  let site: string;
  let secret: string;
  let apacheOutput = '';

  beforeAll(async () => {
    expect(existsSync(APACHE)).toBe(true);
    expect(existsSync(path.join(MODULES, 'mod_auth_openidc.so'))).toBe(true);
    const files = providerRecipe('Recipe: Apache with `mod_auth_openidc`');
    expect(Object.keys(files)).toEqual(['auth_openidc.conf']);
    const sitePort = await freePort();
    site = `http://127.0.0.1:${sitePort}`;

    provider = await startProviderService();
    issuer = provider.issuer;
    secret = (await provider.createClient({
      id: 'intranet',
      name: 'Intranet',
      redirectUris: [`${site}/private/redirect_uri`],
      postLogoutRedirectUris: [`${site}/bye.html`],
    }))!;

    folder = await mkdtemp(path.join(os.tmpdir(), 'mod-auth-openidc-'));
    await chmod(folder, 0o755);
    await writeFile(path.join(folder, 'httpd.conf'), httpdConf(folder, sitePort));
    await writeFile(path.join(folder, 'auth_openidc.conf'), files['auth_openidc.conf']);
    await mkdir(path.join(folder, 'www/private'), { recursive: true, mode: 0o755 });
    await writeFile(path.join(folder, 'www/private/index.html'), PRIVATE_PAGE);
    await writeFile(path.join(folder, 'www/bye.html'), '<!doctype html><title>Bye</title><p>Signed out</p>');
    await writeFile(path.join(folder, 'www/index.html'), '<!doctype html><title>Public</title>');

    apache = spawn(APACHE, ['-X', '-f', path.join(folder, 'httpd.conf'), '-D', 'FOREGROUND'], {
      env: {
        PATH: process.env.PATH,
        AUTH_ISSUER: issuer,
        SITE_URL: site,
        OIDC_CLIENT_SECRET: secret,
        OIDC_CRYPTO_PASSPHRASE: randomBytes(24).toString('base64url'),
      },
    });
    apache.stdout!.on('data', (chunk) => (apacheOutput += chunk));
    apache.stderr!.on('data', (chunk) => (apacheOutput += chunk));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (apache.exitCode !== null) throw new Error(`apache2 exited (${apache.exitCode}):\n${apacheOutput}`);
      const up = await fetch(`${site}/index.html`).then(
        (res) => res.ok,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline) throw new Error(`apache2 did not answer:\n${apacheOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (apache && apache.exitCode === null) {
      const exited = new Promise((resolve) => apache!.once('exit', resolve));
      apache.kill('SIGTERM');
      await exited;
    }
    await provider?.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  /** Apache's error log, for a failure's message. */
  const errorLog = async () =>
    `${apacheOutput}\n${await readFile(path.join(folder, 'error.log'), 'utf8').catch(() => '')}`;

  it('signs in at the provider, shows the page with the claims, refreshes, and signs out at both', async () => {
    const user = await registerUser(issuer);
    const page = await browser.newPage();
    const text = async (selector: string) => (await page.locator(selector).textContent()) ?? '';
    try {
      await page.goto(`${site}/private/index.html`);
      // Not signed in at Apache: the module sends the browser to the provider's sign-in page.
      await page.waitForURL(`${issuer}/api/auth/authorize?**`);
      const authorize = new URL(page.url()).searchParams;
      expect(authorize.get('client_id')).toBe('intranet');
      expect(authorize.get('code_challenge_method')).toBe('S256');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${site}/private/index.html`).catch(async (error) => {
        throw new Error(`${error}\nat ${page.url()}: ${await page.content()}\n${await errorLog()}`);
      });
      expect(await page.locator('#email').textContent()).toBe(user.email);
      expect(await page.locator('#name').textContent()).toBe(user.name);
      expect(await page.locator('#remote-user').textContent()).toBe(user.email);
      const first = { access: await text('#access-token'), refresh: await text('#refresh-token') };
      expect(first.refresh).not.toBe('');
      expect((await me(issuer, first.access)).status).toBe(200);

      // The module's refresh URL: it spends its refresh token at the service and keeps the new pair.
      const back = `${site}/private/index.html`;
      await page.goto(
        `${site}/private/redirect_uri?refresh=${encodeURIComponent(back)}&access_token=${encodeURIComponent(first.access)}`,
      );
      await page.waitForURL(back);
      const renewed = { access: await text('#access-token'), refresh: await text('#refresh-token') };
      expect(renewed.access).not.toBe(first.access);
      expect(renewed.refresh).not.toBe(first.refresh);
      expect((await me(issuer, renewed.access)).status).toBe(200);

      const sessions = await request(issuer)
        .get('/api/account/sessions')
        .set('authorization', `Bearer ${user.tokens.access_token}`);
      expect(sessions.body.data.items).toEqual(
        expect.arrayContaining([expect.objectContaining({ client_name: 'Intranet' })]),
      );

      await page.goto(`${site}/private/redirect_uri?logout=${encodeURIComponent(`${site}/bye.html`)}`);
      await page.waitForURL(`${site}/bye.html`);
      expect(await page.locator('p').textContent()).toBe('Signed out');
      const after = await request(issuer)
        .get('/api/account/sessions')
        .set('authorization', `Bearer ${user.tokens.access_token}`);
      expect(after.body.data.items).not.toEqual(
        expect.arrayContaining([expect.objectContaining({ client_name: 'Intranet' })]),
      );

      // The module's tokens are over at the service: the access token and the refresh token are refused.
      expect((await me(issuer, renewed.access)).status).toBe(401);
      const refused = await request(issuer)
        .post('/api/auth/token')
        .type('form')
        .auth('intranet', secret)
        .send({ grant_type: 'refresh_token', refresh_token: renewed.refresh });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('invalid_grant');

      // Signed out at Apache and at the service: the private page asks for a sign-in again.
      await page.goto(`${site}/private/index.html`);
      await page.waitForURL(`${issuer}/api/auth/authorize?**`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
    } finally {
      await page.close();
    }
  }, 60_000);
});
