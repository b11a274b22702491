import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithPermissions, callerWithRoles, type Caller } from '../support/rbac-factory.js';

/**
 * The console's Clients screen in headless Chromium (Debian's `chromium` driven by
 * playwright-core): a client listed, created with its secret shown once, edited, given a new
 * secret (the old one refused at once) and deleted, each after the API said yes; controls found
 * by role and accessible name.
 */
describe('the admin console’s clients screen in headless Chromium', () => {
  const fixture = useTestApp({ listen: true });
  let app: NestFastifyApplication;
  let db: DataSource;
  let baseUrl: string;
  let browser: Browser;
  let admin: Caller;
  let problems: string[];

  beforeAll(async () => {
    ({ app, db } = fixture);
    admin = await callerWithRoles(app, db, ['admin']);
    baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  async function signedIn(who: { email: string; password: string }): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
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

  /** The token endpoint's answer to a client-credentials request with these credentials. */
  const clientCredentials = (clientId: string, secret: string) =>
    request(app.getHttpServer())
      .post('/api/auth/token')
      .auth(clientId, secret)
      .type('form')
      .send({ grant_type: 'client_credentials' });

  it('creates a client showing its secret once, edits it, replaces its secret and deletes it', async () => {
    const clientId = `portal-${Date.now()}`;
    const page = await signedIn(admin);
    try {
      await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Clients' }).click();
      await page.getByRole('heading', { name: 'Clients', level: 1 }).waitFor();
      const form = page.getByRole('region', { name: 'New client' });

      // A URI the rules refuse: the API's message is shown.
      await form.getByLabel('Client id (optional: one is made)').fill(clientId);
      await form.getByLabel('Name', { exact: true }).fill('Portal');
      await form.getByLabel('Redirect URIs (one a line)').fill('javascript:alert(1)');
      await form.getByRole('button', { name: 'Create client' }).click();
      await form.getByRole('alert').waitFor();
      expect((await call(app, 'get', `/api/admin/clients/${clientId}`, admin.token)).status).toBe(404);

      await form.getByLabel('Redirect URIs (one a line)').fill('https://portal.example.com/callback');
      await form.getByRole('checkbox', { name: 'client_credentials' }).check();
      await form.getByRole('button', { name: 'Create client' }).click();
      await form.getByRole('status').filter({ hasText: 'Client created.' }).waitFor();
      const secret = await form.getByLabel('Client secret').inputValue();
      expect(secret.length).toBeGreaterThan(20);
      expect((await clientCredentials(clientId, secret)).status).toBe(200);
      await page.getByRole('table').getByRole('link', { name: clientId }).waitFor();

      // Shown once: opened again, the client's screen carries no secret.
      await page.goto(`${baseUrl}/admin#/clients/${clientId}`);
      await page.getByRole('heading', { name: `Client ${clientId}`, level: 1 }).waitFor();
      expect(await page.getByLabel('Client secret').count()).toBe(0);
      expect(await page.content()).not.toContain(secret);

      const settings = page.getByRole('region', { name: 'Settings' });
      await settings.getByLabel('Name', { exact: true }).fill('Customer portal');
      await settings.getByLabel('Post-logout URIs (one a line)').fill('https://portal.example.com/bye');
      await settings.getByRole('button', { name: 'Save client' }).click();
      await settings.getByRole('status').filter({ hasText: 'Client saved.' }).waitFor();
      const saved = await call(app, 'get', `/api/admin/clients/${clientId}`, admin.token);
      expect(saved.body.data).toMatchObject({
        name: 'Customer portal',
        redirect_uris: ['https://portal.example.com/callback'],
        post_logout_redirect_uris: ['https://portal.example.com/bye'],
      });

      // A new secret, after a confirmation: the old one is refused at once.
      await page.getByRole('button', { name: 'New secret' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Replace the secret' }).click();
      const replaced = page.getByRole('region', { name: 'Secret' }).getByLabel('Client secret');
      await replaced.waitFor();
      const newSecret = await replaced.inputValue();
      expect(newSecret).not.toBe(secret);
      expect((await clientCredentials(clientId, secret)).status).toBe(401);
      expect((await clientCredentials(clientId, newSecret)).status).toBe(200);

      // Delete, after a confirmation (Cancel keeps it).
      await page.getByRole('button', { name: 'Delete client' }).click();
      const question = page.getByRole('alertdialog', {
        name: `Delete the client ${clientId}? Its tokens stop working.`,
      });
      await question.getByRole('button', { name: 'Cancel' }).click();
      await question.waitFor({ state: 'detached' });
      expect((await call(app, 'get', `/api/admin/clients/${clientId}`, admin.token)).status).toBe(200);
      await page.getByRole('button', { name: 'Delete client' }).click();
      await question.getByRole('button', { name: 'Delete the client' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Client ${clientId} deleted.` })
        .waitFor();
      expect((await call(app, 'get', `/api/admin/clients/${clientId}`, admin.token)).status).toBe(404);
      expect((await clientCredentials(clientId, newSecret)).status).toBe(401);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('offers an administrator holding only clients.view the list and records, and no control that changes them', async () => {
    const clientId = `viewer-seen-${Date.now()}`;
    const created = await call(app, 'post', '/api/admin/clients', admin.token, {
      client_id: clientId,
      name: 'Seen',
      type: 'public',
      redirect_uris: ['http://127.0.0.1/callback'],
    });
    expect(created.status).toBe(201);
    const viewer = await callerWithPermissions(app, db, ['clients.view']);
    const page = await signedIn(viewer);
    try {
      const screens = await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allInnerTexts();
      expect(screens).toEqual(['Clients']);
      await page.getByRole('heading', { name: 'Clients', level: 1 }).waitFor();
      expect(await page.getByRole('region', { name: 'New client' }).count()).toBe(0);
      await page.getByRole('link', { name: clientId }).click();
      await page.getByRole('heading', { name: `Client ${clientId}`, level: 1 }).waitFor();
      expect(await page.getByRole('button', { name: /Save|Delete|New secret/ }).count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
