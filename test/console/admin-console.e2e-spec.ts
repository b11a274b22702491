import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { loginTokens, registerUser, uniqueMobile } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithPermissions } from '../support/rbac-factory.js';
import type { SmsReceiver } from '../support/sms-receiver.js';
import { createTestConfig } from '../support/test-config.js';
import { PasswordHasher } from '../../src/identity/password-hasher.js';
import { SeedService } from '../../src/rbac/seeds/seed.service.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts');
const ADMIN = { email: 'console-admin@example.com', password: 'Juniper-Harbour-Quartz-73', mobile: uniqueMobile() };
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/**
 * The admin console at /admin, in a real browser (Debian's Chromium driven by playwright-core),
 * against the real service: the seeded administrator signs in with the SMS code, builds a role,
 * gives it to a user and ends one of that user's sessions. Every request the page makes is
 * recorded (none may leave the service's origin), and so is every CSP refusal (none may happen).
 */
describe('the admin console in headless Chromium', () => {
  const fixture = useTestApp({
    sms: true,
    listen: true,
    env: {
      AUTH_EMAIL_PASSWORD: 'true',
      AUTH_MOBILE_OTP: 'true',
      OTP_RESEND_SECONDS: '0',
    },
  });
  let app: NestFastifyApplication;
  let db: DataSource;
  let sms: SmsReceiver;
  let baseUrl: string;
  let browser: Browser;
  let foreignRequests: string[];
  let cspViolations: string[];

  beforeAll(async () => {
    ({ app, db, sms } = fixture);
    // The seeder, as `npm run seed` runs it, with this administrator's variables: the test
    // database already holds the default data, so only the account is added.
    const config = createTestConfig({
      SEED_ADMIN_EMAIL: ADMIN.email,
      SEED_ADMIN_PASSWORD: ADMIN.password,
      SEED_ADMIN_MOBILE: ADMIN.mobile,
    });
    const report = await new SeedService(db, config, new PasswordHasher(config)).run();
    expect(report.accountsCreated.map((account) => account.email)).toContain(ADMIN.email);
    baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  async function newPage(viewport = DESKTOP, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const context = await browser.newContext({ viewport, colorScheme });
    const page = await context.newPage();
    foreignRequests = [];
    cspViolations = [];
    page.on('request', (req) => {
      if (new URL(req.url()).origin !== baseUrl) foreignRequests.push(req.url());
    });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => cspViolations.push(`page error: ${error.message}`));
    return page;
  }

  async function signIn(page: Page, user: { email: string; password: string }) {
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  it('serves /admin and its assets under a strict Content-Security-Policy', async () => {
    const res = await fetch(`${baseUrl}/admin`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    const script = /<script type="module" crossorigin src="(\/admin\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    // Nothing inline: the page's only script is a file of this origin.
    expect(html.match(/<script/g)).toHaveLength(1);
    const asset = await fetch(`${baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');
    expect((await fetch(`${baseUrl}/admin/assets/nothing-here.js`)).status).toBe(404);
  });

  it('signs the seeded admin in with the SMS code, creates a role, gives it to a user, and revokes a session', async () => {
    const user = await registerUser(app, { name: 'Role Receiver' });
    const second = await loginTokens(app, user);
    const page = await newPage();
    try {
      const response = await page.goto(`${baseUrl}/admin`);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      await signIn(page, ADMIN);
      await page.getByLabel('Code sent by SMS').waitFor();
      expect(await page.evaluate('document.activeElement.id')).toBe('code');
      await page.getByLabel('Code sent by SMS').fill(await sms.codeFor(ADMIN.mobile));
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.getByRole('navigation', { name: 'Screens' }).waitFor();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();

      // A role with two permissions, from the matrix.
      await page.getByRole('link', { name: 'Roles', exact: true }).click();
      await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
      const roleName = `editors-${Date.now()}`;
      await page.getByLabel('Name', { exact: true }).fill(roleName);
      await page.getByLabel('Display name').fill('Content editors');
      const matrix = page.locator('.matrix');
      await matrix.locator('input[value="contents.view"]').check();
      await matrix.locator('input[value="contents.edit"]').check();
      await page.getByRole('button', { name: 'Create role' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Role ${roleName} created.` })
        .waitFor();
      await page.getByRole('link', { name: roleName }).waitFor();
      await page.screenshot({ path: path.join(ARTIFACTS, 'console-roles-1280.png'), fullPage: true });

      // A refusal of the API is shown as its message.
      await page.getByLabel('Name', { exact: true }).fill(roleName);
      await page.getByRole('button', { name: 'Create role' }).click();
      await page.getByRole('alert').filter({ hasText: 'A role with this name already exists.' }).waitFor();

      // The role's own screen: its matrix shows the two permissions granted.
      await page.getByRole('link', { name: roleName }).click();
      await page.getByRole('heading', { name: `Role ${roleName}`, level: 1 }).waitFor();
      const granted = page.locator('.matrix input:checked');
      await granted.nth(1).waitFor();
      const values = await Promise.all(
        Array.from({ length: await granted.count() }, (_, n) => granted.nth(n).getAttribute('value')),
      );
      expect(values).toEqual(['contents.view', 'contents.edit']);
      await page.screenshot({ path: path.join(ARTIFACTS, 'console-role-1280.png') });

      // A system role is marked and protected: no rename, no delete offered.
      await page.getByRole('link', { name: 'All roles' }).click();
      await page.getByRole('link', { name: 'admin', exact: true }).click();
      await page.getByRole('heading', { name: 'Role admin', level: 1 }).waitFor();
      await page.getByText('A system role: it cannot be renamed or deleted.').waitFor();
      expect(await page.getByLabel('Name', { exact: true }).getAttribute('readonly')).not.toBeNull();
      expect(await page.getByRole('button', { name: 'Delete role' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Save role' }).count()).toBe(1);

      // The user's record: give the role.
      await page.goto(`${baseUrl}/admin#/users/${user.id}`);
      await page.getByRole('heading', { name: 'Role Receiver', level: 1 }).waitFor();
      await page.getByLabel('Give a role').selectOption({ label: 'Content editors' });
      await page.getByRole('button', { name: 'Give role' }).click();
      await page.getByRole('status').filter({ hasText: 'Role given.' }).waitFor();
      await page.locator('.chips li', { hasText: roleName }).waitFor();

      // Through the API, the user's own view of themselves has the role's permissions.
      const me = await call(app, 'get', '/api/auth/me', second.access_token);
      expect(me.status).toBe(200);
      expect(me.body.data.permissions).toEqual(expect.arrayContaining(['contents.view', 'contents.edit']));
      expect(me.body.data.roles).toContain(roleName);

      // Two sessions (registration's and the later login); revoke one of them.
      const rows = page.locator('section[aria-labelledby="sessions-title"] tbody tr');
      await rows.nth(1).waitFor();
      expect(await rows.count()).toBe(2);
      await page.screenshot({ path: path.join(ARTIFACTS, 'console-user-1280.png'), fullPage: true });
      await rows
        .first()
        .getByRole('button', { name: /^Revoke the session/ })
        .click();
      await page.getByRole('status').filter({ hasText: 'Session revoked.' }).waitFor();
      await rows.nth(1).waitFor({ state: 'detached' });
      expect(await rows.count()).toBe(1);
      const statuses = await Promise.all(
        [user.tokens.access_token, second.access_token].map(
          async (token) => (await call(app, 'get', '/api/auth/me', token)).status,
        ),
      );
      expect(statuses.sort()).toEqual([200, 401]);

      // Disabling, where the API offers it: the user's token is refused afterwards.
      const openapi = await call(app, 'get', '/docs/openapi.json');
      if (openapi.body.paths?.['/api/admin/users/{id}/disable']) {
        const live = statuses[0] === 200 ? user.tokens.access_token : second.access_token;
        await page.getByRole('button', { name: 'Disable user' }).click();
        await page.getByRole('status').filter({ hasText: 'User disabled.' }).waitFor();
        expect((await call(app, 'get', '/api/auth/me', live)).status).toBe(401);
      }

      // The audit trail, filtered by type and target: the role given above.
      await page.getByRole('link', { name: 'Audit events' }).click();
      await page.getByRole('heading', { name: 'Audit events', level: 1 }).waitFor();
      await page.getByLabel('Type').fill('user.roles');
      await page.getByLabel('Target (id)').fill(user.id);
      await page.getByLabel('From').fill('2000-01-01T00:00');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('Page 1 of 1 (1 in all)').waitFor();
      expect(await page.locator('table tbody tr').allInnerTexts()).toEqual([expect.stringContaining('user.roles')]);
      await page.screenshot({ path: path.join(ARTIFACTS, 'console-audit-1280.png') });

      // The login-method flags, as the service has them.
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
      expect(await page.getByRole('checkbox', { name: 'Sign-in with email and password' }).isChecked()).toBe(true);
      expect(await page.getByRole('checkbox', { name: 'Sign-in with a code sent by SMS' }).isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Save settings' }).waitFor();

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      expect(foreignRequests).toEqual([]);
      expect(cspViolations).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('fits a phone, in dark mode: the users list and the roles screen at 390 pixels wide', async () => {
    const page = await newPage(PHONE, 'dark');
    try {
      await page.goto(`${baseUrl}/admin`);
      await signIn(page, ADMIN);
      await page.getByLabel('Code sent by SMS').fill(await sms.codeFor(ADMIN.mobile));
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'Administrator' }).first().waitFor();
      await page.screenshot({ path: path.join(ARTIFACTS, 'console-users-phone-dark.png'), fullPage: true });
      // The dark palette applies (prefers-color-scheme).
      expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(15, 20, 25)');
      // Nothing wider than the screen but the tables' own scrolling boxes.
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
      await page.getByRole('link', { name: 'Roles', exact: true }).click();
      await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'admin', exact: true }).waitFor();
      await page.locator('.matrix input').first().waitFor();
      await page.screenshot({ path: path.join(ARTIFACTS, 'console-roles-phone-dark.png'), fullPage: true });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
      expect(foreignRequests).toEqual([]);
      expect(cspViolations).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('offers an administrator holding only users.view no edit control', async () => {
    const viewer = await callerWithPermissions(app, db, ['users.view']);
    const other = await registerUser(app, { name: 'Viewed User' });
    const page = await newPage();
    try {
      await page.goto(`${baseUrl}/admin`);
      // By keyboard alone: Enter submits, and the new screen's heading takes the focus.
      await page.getByLabel('Email').fill(viewer.email);
      await page.getByLabel('Password').fill(viewer.password);
      await page.getByLabel('Password').press('Enter');
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      expect(await page.evaluate('document.activeElement.id')).toBe('screen-title');
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.id')).toBe('user-search');
      // An expired access token: the console refreshes the session with the refresh cookie.
      await page.context().clearCookies({ name: 'access_token' });
      await page.reload();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      const screens = await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allInnerTexts();
      expect(screens).toEqual(['Users']);
      await page.goto(`${baseUrl}/admin#/users/${other.id}`);
      await page.getByRole('heading', { name: 'Viewed User', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Roles', level: 2 }).waitFor();
      expect(await page.getByLabel('Give a role').count()).toBe(0);
      expect(
        await page.getByRole('button', { name: /Remove|Give role|Revoke|Disable|Enable|Delete|Save/ }).count(),
      ).toBe(0);
      expect(await page.getByRole('heading', { name: 'Sessions' }).count()).toBe(0);
      // A screen it may not use is not offered even by its address.
      await page.goto(`${baseUrl}/admin#/roles`);
      await page.getByText('This account may not open this screen.').waitFor();
      expect(foreignRequests).toEqual([]);
      expect(cspViolations).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
