import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithPermissions, type Caller } from '../support/rbac-factory.js';
import { MockUpstream } from '../upstream/mock-upstream.js';

const PHONE = { width: 360, height: 640 };

/**
 * The console's Identity providers screen in headless Chromium at a phone's width: providers
 * listed, created (OpenID Connect against a real provider on a loopback port, and GitHub), edited,
 * disabled and enabled, deleted, each after the API said yes; every refusal shown as the API
 * words it; the controls that change them shown only with `settings.edit`.
 */
describe('the admin console’s identity providers screen in headless Chromium', () => {
  const fixture = useTestApp({ listen: true });
  let app: NestFastifyApplication;
  let db: DataSource;
  let baseUrl: string;
  let browser: Browser;
  let editor: Caller;
  let problems: string[];
  const upstream = new MockUpstream();

  beforeAll(async () => {
    ({ app, db } = fixture);
    await upstream.start();
    editor = await callerWithPermissions(app, db, ['settings.view', 'settings.edit']);
    baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await upstream.stop();
  });

  async function signedIn(who: { email: string; password: string }): Promise<Page> {
    const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    problems = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(`${baseUrl}/admin`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();
    return page;
  }

  /** Nothing wider than the phone's screen: no sideways scrolling. */
  async function fitsThePhone(page: Page): Promise<void> {
    expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(PHONE.width);
  }

  const provider = async (slug: string) => call(app, 'get', `/api/admin/identity-providers/${slug}`, editor.token);

  it('creates OpenID Connect and GitHub providers, edits, disables, enables and deletes one, showing each refusal', async () => {
    const slug = `corp-${Date.now()}`;
    const page = await signedIn(editor);
    try {
      await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Identity providers' }).click();
      await page.getByRole('heading', { name: 'Identity providers', level: 1 }).waitFor();
      await fitsThePhone(page);
      const form = page.getByRole('region', { name: 'New identity provider' });

      // An issuer the rules refuse: the API's message and its reason are shown, nothing is made.
      await form.getByLabel('Slug (in the callback URL; cannot change)').fill(slug);
      await form.getByLabel('Name (on the button “Continue with …”)').fill('Corp Login');
      await form.getByLabel('Issuer URL').fill('http://idp.example.com');
      await form.getByLabel('Client id').fill('serviceAtUpstream');
      await form.getByLabel('Client secret').fill('upstream-client-secret-value');
      await form.getByRole('button', { name: 'Create identity provider' }).click();
      await form
        .getByRole('alert')
        .filter({
          hasText: 'issuer must be an https URL (http only on a loopback host), without credentials or fragment',
        })
        .waitFor();
      await fitsThePhone(page);
      expect((await provider(slug)).status).toBe(404);

      await form.getByLabel('Issuer URL').fill(upstream.issuer);
      await form.getByRole('checkbox', { name: /Trust its verified email addresses/ }).check();
      await form.getByRole('button', { name: 'Create identity provider' }).click();
      await form.getByRole('status').filter({ hasText: 'Identity provider created.' }).waitFor();
      await form.getByText(`/api/auth/authorize/upstream/${slug}/callback`).waitFor();
      await page.getByRole('table').getByRole('link', { name: 'Corp Login' }).waitFor();
      await fitsThePhone(page);
      expect((await provider(slug)).body.data).toMatchObject({
        slug,
        name: 'Corp Login',
        type: 'oidc',
        issuer: upstream.issuer,
        client_id: 'serviceAtUpstream',
        trust_email: true,
        allow_sign_up: true,
        enabled: true,
      });

      // A GitHub provider needs no issuer.
      const github = `gh-${Date.now()}`;
      await form.getByLabel('Slug (in the callback URL; cannot change)').fill(github);
      await form.getByLabel('Type').selectOption('github');
      await form.getByLabel('Name (on the button “Continue with …”)').fill('GitHub');
      await form.getByLabel('Client id').fill('Iv1console');
      await form.getByLabel('Client secret').fill('github-client-secret-value');
      await form.getByRole('button', { name: 'Create identity provider' }).click();
      await form.getByRole('status').filter({ hasText: 'Identity provider created.' }).waitFor();
      expect((await provider(github)).body.data).toMatchObject({ type: 'github', issuer: null, trust_email: false });

      // Edit: a scope the API refuses, then a good change.
      await page.getByRole('table').getByRole('link', { name: 'Corp Login' }).click();
      await page.getByRole('heading', { name: `Identity provider ${slug}`, level: 1 }).waitFor();
      await fitsThePhone(page);
      const settings = page.getByRole('region', { name: 'Settings' });
      await settings.getByLabel('Scopes (space-separated; empty: the default)').fill('openid "quoted"');
      await settings.getByRole('button', { name: 'Save identity provider' }).click();
      await settings
        .getByRole('alert')
        .filter({ hasText: 'each value of scopes must be a scope (printable, no space)' })
        .waitFor();
      await settings.getByLabel('Scopes (space-separated; empty: the default)').fill('openid email');
      await settings.getByLabel('Name (on the button “Continue with …”)').fill('Corp Sign-in');
      await settings.getByRole('checkbox', { name: /New people may get an account/ }).uncheck();
      await settings.getByRole('button', { name: 'Save identity provider' }).click();
      await settings.getByRole('status').filter({ hasText: 'Identity provider saved.' }).waitFor();
      expect((await provider(slug)).body.data).toMatchObject({
        name: 'Corp Sign-in',
        scopes: ['openid', 'email'],
        allow_sign_up: false,
        trust_email: true,
        enabled: true,
      });

      // Disable and enable.
      await page.getByRole('button', { name: 'Disable identity provider' }).click();
      await page.getByRole('status').filter({ hasText: 'Identity provider disabled.' }).waitFor();
      expect((await provider(slug)).body.data.enabled).toBe(false);
      await page.getByRole('button', { name: 'Enable identity provider' }).click();
      await page.getByRole('status').filter({ hasText: 'Identity provider enabled.' }).waitFor();
      expect((await provider(slug)).body.data.enabled).toBe(true);

      // Delete after a confirmation (Cancel keeps it).
      await page.getByRole('button', { name: 'Delete identity provider' }).click();
      const question = page.getByRole('alertdialog', {
        name: 'Delete Corp Sign-in? The identities linked through it go with it.',
      });
      await question.getByRole('button', { name: 'Cancel' }).click();
      await question.waitFor({ state: 'detached' });
      expect((await provider(slug)).status).toBe(200);
      await page.getByRole('button', { name: 'Delete identity provider' }).click();
      await question.getByRole('button', { name: 'Delete the identity provider' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Identity provider ${slug} deleted.` })
        .waitFor();
      expect((await provider(slug)).status).toBe(404);
      await fitsThePhone(page);

      // Deleted behind the console's back: the API's refusal is shown.
      await page.goto(`${baseUrl}/admin#/identity-providers/${github}`);
      await page.getByRole('heading', { name: `Identity provider ${github}`, level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Disable identity provider' }).waitFor();
      expect((await call(app, 'delete', `/api/admin/identity-providers/${github}`, editor.token)).status).toBe(200);
      await page.getByRole('button', { name: 'Disable identity provider' }).click();
      await page.getByRole('alert').filter({ hasText: 'Identity provider not found.' }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('offers a holder of settings.view only the list and records, and no control that changes them', async () => {
    const slug = `seen-${Date.now()}`;
    const created = await call(app, 'post', '/api/admin/identity-providers', editor.token, {
      slug,
      name: 'Seen Provider',
      type: 'oidc',
      issuer: upstream.issuer,
      client_id: 'serviceAtUpstream',
      client_secret: 'upstream-client-secret-value',
    });
    expect(created.status).toBe(201);
    const viewer = await callerWithPermissions(app, db, ['settings.view']);
    const page = await signedIn(viewer);
    try {
      const screens = await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allInnerTexts();
      expect(screens).toEqual(['Identity providers', 'Settings']);
      await page.getByRole('heading', { name: 'Identity providers', level: 1 }).waitFor();
      expect(await page.getByRole('region', { name: 'New identity provider' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Seen Provider' }).click();
      await page.getByRole('heading', { name: `Identity provider ${slug}`, level: 1 }).waitFor();
      await page.getByText(`/api/auth/authorize/upstream/${slug}/callback`).waitFor();
      expect(await page.getByRole('button', { name: /Save|Delete|Disable|Enable/ }).count()).toBe(0);
      await fitsThePhone(page);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, 60_000);
});
