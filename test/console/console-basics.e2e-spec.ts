import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { TOTP, URI } from 'otpauth';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { login, registerUser, sleep, uniqueEmail, uniqueMobile, type RegisteredUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithPermissions, callerWithRoles, type Caller } from '../support/rbac-factory.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts');
const NEW_PASSWORD = 'Cobalt-Meadow-Lantern-19';

/** Enrols an authenticator app for the user through the API, as the person would. */
async function enrolApp(app: NestFastifyApplication, user: RegisteredUser): Promise<void> {
  const intoStep = Date.now() % 30_000;
  if (intoStep > 22_000) await sleep(30_000 - intoStep + 500);
  const started = await call(app, 'post', '/api/account/totp', user.tokens.access_token, {});
  expect(started.status).toBe(200);
  const totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
  const confirmed = await call(app, 'post', '/api/account/totp/confirm', user.tokens.access_token, {
    code: totp.generate(),
  });
  expect(confirmed.status).toBe(200);
}

/**
 * The console's everyday administration in headless Chromium (Debian's `chromium` driven by
 * playwright-core), each screen found by role and accessible name: users created, edited and
 * deleted; a lost authenticator app removed; permissions edited and deleted; a role removed only
 * after a confirmation; the audit trail naming people by email; the settings in words.
 */
describe('the admin console’s everyday administration in headless Chromium', () => {
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
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** A page signed in as `who` (a password-only account), recording CSP refusals and page errors. */
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

  /** Pages the permissions list forward, once each page has loaded, to the one holding the button. */
  async function pageWith(page: Page, button: string): Promise<void> {
    await page.getByText(/^Page \d+ of \d+/).waitFor();
    for (;;) {
      const shown = (await page.getByText(/^Page \d+ of \d+/).innerText()).split(' ')[1];
      if ((await page.getByRole('button', { name: button }).count()) > 0) return;
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText(new RegExp(`^Page ${Number(shown) + 1} of`)).waitFor();
    }
  }

  const status = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();
  const alert = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text }).waitFor();

  it('creates a user, edits the record, and deletes the user after a confirmation', async () => {
    const page = await signedIn(admin);
    try {
      const email = uniqueEmail('created');
      const mobile = uniqueMobile();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      const form = page.getByRole('region', { name: 'New user' });
      await form.getByLabel('Name').fill('Created Person');
      await form.getByLabel('Email').fill(email);
      await form.getByLabel('Password').fill(NEW_PASSWORD);
      await form.getByRole('button', { name: 'Create user' }).click();
      await status(page, 'User Created Person created.');
      const signIn = await login(app, { email, password: NEW_PASSWORD });
      expect(signIn.status).toBe(200);
      const id: string = signIn.body.data.user.id;

      await page.getByRole('link', { name: 'Open Created Person' }).waitFor();

      // A refusal of the API is shown as its message: the address is taken.
      await form.getByLabel('Name').fill('Someone Else');
      await form.getByLabel('Email').fill(email);
      await form.getByLabel('Password').fill(NEW_PASSWORD);
      await form.getByRole('button', { name: 'Create user' }).click();
      await page.getByRole('alert').waitFor();

      await page.goto(`${baseUrl}/admin#/users/${id}`);
      await page.getByRole('heading', { name: 'Created Person', level: 1 }).waitFor();
      const details = page.getByRole('region', { name: 'Details' });
      await details.getByLabel('Name').fill('Renamed Person');
      await details.getByLabel('Mobile (empty: none)').fill(mobile);
      await details.getByRole('button', { name: 'Save user' }).click();
      await status(page, 'User saved.');
      await page.getByRole('heading', { name: 'Renamed Person', level: 1 }).waitFor();
      const record = await call(app, 'get', `/api/admin/users/${id}`, admin.token);
      expect(record.body.data).toMatchObject({ name: 'Renamed Person', mobile });

      // Delete asks first; Cancel keeps the user.
      await page.getByRole('button', { name: 'Delete user' }).click();
      const question = page.getByRole('alertdialog', { name: `Delete Renamed Person (${email}) for good?` });
      await question.waitFor();
      await question.getByRole('button', { name: 'Cancel' }).click();
      await question.waitFor({ state: 'detached' });
      expect((await call(app, 'get', `/api/admin/users/${id}`, admin.token)).status).toBe(200);
      await page.getByRole('button', { name: 'Delete user' }).click();
      await question.getByRole('button', { name: 'Delete the user' }).click();
      await status(page, `User ${email} deleted.`);
      expect((await call(app, 'get', `/api/admin/users/${id}`, admin.token)).status).toBe(404);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('removes a role only after the question is answered, and the audit trail names both people by email', async () => {
    const user = await registerUser(app, { name: 'Role Holder' });
    const page = await signedIn(admin);
    try {
      await page.goto(`${baseUrl}/admin#/users/${user.id}`);
      await page.getByRole('heading', { name: 'Role Holder', level: 1 }).waitFor();
      // Sessions: "Last used" is the sign-in's time, not blank.
      const session = page.getByRole('region', { name: 'Sessions' }).locator('tbody tr').first();
      await session.waitFor();
      expect((await session.locator('td').nth(1).innerText()).trim()).not.toBe('—');

      await page.getByRole('button', { name: 'Remove role user' }).click();
      const question = page.getByRole('alertdialog', { name: 'Remove the role user from Role Holder?' });
      await question.waitFor();
      await question.getByRole('button', { name: 'Cancel' }).click();
      await question.waitFor({ state: 'detached' });
      const kept = await call(app, 'get', `/api/admin/users/${user.id}`, admin.token);
      expect(kept.body.data.roles.map((role: { name: string }) => role.name)).toEqual(['user']);

      await page.getByRole('button', { name: 'Remove role user' }).click();
      await question.getByRole('button', { name: 'Remove the role' }).click();
      await status(page, 'Role removed.');
      const after = await call(app, 'get', `/api/admin/users/${user.id}`, admin.token);
      expect(after.body.data.roles).toEqual([]);

      // The audit trail, filtered by the actor's email: people by email, no id prefix.
      await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Audit events' }).click();
      await page.getByRole('heading', { name: 'Audit events', level: 1 }).waitFor();
      await page.getByLabel('Type').fill('user.roles');
      await page.getByLabel('Actor (email or user id)').fill(admin.email);
      await page.getByLabel('Target (id)').fill(user.id);
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('Page 1 of 1 (1 in all)').waitFor();
      const row = page.locator('table tbody tr').first();
      await row.getByRole('link', { name: admin.email }).waitFor();
      await row.getByRole('link', { name: user.email }).waitFor();
      expect(await row.innerText()).not.toContain(user.id.slice(0, 8));
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('shows a challenge’s methods in the audit trail and removes a lost authenticator app after a confirmation', async () => {
    const user = await registerUser(app, { name: 'Lost Device' });
    await enrolApp(app, user);
    const challenged = await login(app, { email: user.email, password: user.password });
    expect(challenged.body.data.requires_otp).toBe(true);

    const page = await signedIn(admin);
    try {
      await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Audit events' }).click();
      await page.getByLabel('Type').fill('2fa.challenge');
      await page.getByLabel('Actor (email or user id)').fill(user.email);
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('Page 1 of 1 (1 in all)').waitFor();
      const details = await page.locator('table tbody tr').first().innerText();
      expect(details).toContain('"methods":["totp"');
      expect(details).toContain('"login":"email"');
      expect(details).not.toContain('"method":"email"');

      await page.goto(`${baseUrl}/admin#/users/${user.id}`);
      await page.getByRole('heading', { name: 'Lost Device', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Remove authenticator app' }).click();
      const question = page.getByRole('alertdialog', {
        name: 'Remove the authenticator app of Lost Device and end every session?',
      });
      await question.getByRole('button', { name: 'Remove the app' }).click();
      await status(page, 'Authenticator app removed.');
      const signIn = await login(app, { email: user.email, password: user.password });
      expect(signIn.status).toBe(200);
      expect(signIn.body.data.access_token).toEqual(expect.any(String));

      // Asked again, the API's refusal is shown as its message.
      await page.getByRole('button', { name: 'Remove authenticator app' }).click();
      await question.getByRole('button', { name: 'Remove the app' }).click();
      await alert(page, 'This user has no authenticator app.');
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('shows a less privileged administrator the refusal to remove an administrator’s app', async () => {
    const target = await callerWithRoles(app, db, ['admin']);
    await enrolApp(app, target);
    const editor = await callerWithPermissions(app, db, ['users.view', 'users.edit']);
    const page = await signedIn(editor);
    try {
      await page.goto(`${baseUrl}/admin#/users/${target.id}`);
      await page.getByRole('button', { name: 'Remove authenticator app' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Remove the app' }).click();
      await page
        .getByRole('region', { name: 'Second factor' })
        .getByRole('alert')
        .filter({ hasText: /^You cannot change a user holding [a-z_.]+, a permission you do not hold\.$/ })
        .waitFor();
      const stillThere = await db.query(`SELECT 1 FROM totp_authenticators WHERE user_id = $1`, [target.id]);
      expect(stillThere).toHaveLength(1);
      // No delete offered without users.delete.
      expect(await page.getByRole('button', { name: 'Delete user' }).count()).toBe(0);
    } finally {
      await page.context().close();
    }
  });

  it('edits a permission and deletes it after a confirmation; a system permission offers no delete', async () => {
    const name = `reports${Date.now()}.export`;
    const created = await call(app, 'post', '/api/admin/permissions', admin.token, { name });
    expect(created.status).toBe(201);
    const page = await signedIn(admin);
    try {
      await page
        .getByRole('navigation', { name: 'Screens' })
        .getByRole('link', { name: 'Permissions', exact: true })
        .click();
      await page.getByRole('heading', { name: 'Permissions', level: 1 }).waitFor();
      await pageWith(page, `Edit permission ${name}`);
      await page.getByRole('button', { name: `Edit permission ${name}` }).click();
      const form = page.getByRole('region', { name: `Edit permission ${name}` });
      await form.getByLabel('Display name').fill('Export reports');
      await form.getByLabel('Group').fill('Reports');
      await form.getByRole('button', { name: 'Save permission' }).click();
      await status(page, 'Permission saved.');
      const saved = await call(app, 'get', `/api/admin/permissions/${created.body.data.id}`, admin.token);
      expect(saved.body.data).toMatchObject({ display_name: 'Export reports', group_name: 'Reports' });

      await pageWith(page, `Delete permission ${name}`);
      await page.getByRole('button', { name: `Delete permission ${name}` }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Delete the permission' }).click();
      await status(page, `Permission ${name} deleted.`);
      expect((await call(app, 'get', `/api/admin/permissions/${created.body.data.id}`, admin.token)).status).toBe(404);

      // A system permission: editable in words, but no delete and no rename.
      // A fresh load, from the first page.
      await page.reload();
      await pageWith(page, 'Edit permission users.view');
      expect(await page.getByRole('button', { name: 'Delete permission users.view' }).count()).toBe(0);
      await page.getByRole('button', { name: 'Edit permission users.view' }).click();
      const system = page.getByRole('region', { name: 'Edit permission users.view' });
      expect(await system.getByLabel('Name (resource.action)').getAttribute('readonly')).not.toBeNull();
      await page.screenshot({ path: path.join(ARTIFACTS, 'console-permissions-edit-1280.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('deletes a role only after the question is answered', async () => {
    const name = `auditors-${Date.now()}`;
    const created = await call(app, 'post', '/api/admin/roles', admin.token, { name });
    expect(created.status).toBe(201);
    const page = await signedIn(admin);
    try {
      await page.goto(`${baseUrl}/admin#/roles/${created.body.data.id}`);
      await page.getByRole('heading', { name: `Role ${name}`, level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Delete role' }).click();
      const question = page.getByRole('alertdialog', {
        name: `Delete the role ${name}? Every user holding it loses it.`,
      });
      await question.getByRole('button', { name: 'Cancel' }).click();
      await question.waitFor({ state: 'detached' });
      expect((await call(app, 'get', `/api/admin/roles/${created.body.data.id}`, admin.token)).status).toBe(200);
      await page.getByRole('button', { name: 'Delete role' }).click();
      await question.getByRole('button', { name: 'Delete the role' }).click();
      await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
      expect((await call(app, 'get', `/api/admin/roles/${created.body.data.id}`, admin.token)).status).toBe(404);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('names every login-method setting in words, never by its key', async () => {
    const page = await signedIn(admin);
    try {
      await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
      await page.getByRole('checkbox', { name: 'Sign-in with email and password' }).waitFor();
      await page.getByRole('checkbox', { name: 'Sign-in with a code sent by SMS' }).waitFor();
      await page.getByRole('checkbox', { name: 'Sign-in with a code sent by email' }).waitFor();
      const text = await page.getByRole('main').innerText();
      for (const key of ['email_password', 'mobile_otp', 'email_code']) expect(text).not.toContain(key);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
