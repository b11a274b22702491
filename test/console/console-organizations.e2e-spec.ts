import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { registerUser, uniqueEmail } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithOnlyPermissions, callerWithRoles, type Caller } from '../support/rbac-factory.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/**
 * The console's organizations in headless Chromium (Debian's `chromium` driven by playwright-core):
 * the list and a new organization, its members and their roles, invitations, and the
 * organization-role template; the screens hidden from an account without their permission, a
 * refusal shown as the API's message, and a phone's width.
 */
describe('the admin console’s organizations in headless Chromium', () => {
  const fixture = useTestApp({ listen: true, smtp: true });
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

  /** A page signed in as `who` (a password-only account), recording CSP refusals, page errors and foreign requests. */
  async function signedIn(who: { email: string; password: string }, viewport = DESKTOP): Promise<Page> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    problems = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (req) => {
      if (new URL(req.url()).origin !== baseUrl) problems.push(`foreign request: ${req.url()}`);
    });
    await page.goto(`${baseUrl}/admin`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();
    return page;
  }

  const status = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();
  const alert = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text }).waitFor();
  const screens = (page: Page) => page.getByRole('navigation', { name: 'Screens' });

  /** The organization roles of a member, by name, as the API answers them. */
  async function rolesOf(organizationId: string, userId: string): Promise<string[]> {
    const members = await call(app, 'get', `/api/organizations/${organizationId}/members?limit=100`, admin.token);
    const member = members.body.data.items.find((row: { user_id: string }) => row.user_id === userId);
    return member.roles.map((role: { name: string }) => role.name).sort();
  }

  it('creates an organization, invites a member, changes a member’s roles and removes one; a taken slug is refused in the API’s words', async () => {
    const slug = `harbour-${randomUUID().slice(0, 8)}`;
    const joiner = await registerUser(app, { name: 'Joining Person' });
    const page = await signedIn(admin);
    try {
      await screens(page).getByRole('link', { name: 'Organizations', exact: true }).click();
      await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor();
      const form = page.getByRole('region', { name: 'New organization' });
      await form.getByLabel('Name').fill('Harbour Foods');
      await form.getByLabel('Slug (a-z, 0-9 and -)').fill(slug);
      await form.getByRole('button', { name: 'Create organization' }).click();
      await status(page, 'Organization Harbour Foods created; you are its owner.');

      // The same slug again: the API's 409 is shown as its message.
      await form.getByLabel('Name').fill('Harbour Again');
      await form.getByLabel('Slug (a-z, 0-9 and -)').fill(slug);
      await form.getByRole('button', { name: 'Create organization' }).click();
      await alert(page, 'An organization with this slug already exists.');

      // The list finds it by its slug.
      await page.getByLabel('Search by slug or name').fill(slug);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Page 1 of 1 (1 in all)').waitFor();
      await page.getByRole('link', { name: 'Harbour Foods' }).click();
      await page.getByRole('heading', { name: 'Harbour Foods', level: 1 }).waitFor();
      const id = page.url().split('/').pop()!;
      const members = page.getByRole('region', { name: 'Members' });
      await members.getByRole('cell', { name: admin.email, exact: true }).waitFor();
      expect(await rolesOf(id, admin.id)).toEqual(['owner']);

      // An invitation with the member role: listed as pending, and mailed.
      const invited = uniqueEmail('invited');
      const invitations = page.getByRole('region', { name: 'Invitations' });
      await invitations.getByLabel('Email to invite').fill(invited);
      await invitations.getByRole('group', { name: 'Roles on joining' }).getByLabel('Member', { exact: true }).check();
      await invitations.getByRole('button', { name: 'Send invitation' }).click();
      await status(page, `Invitation sent to ${invited}.`);
      await invitations
        .getByRole('row', { name: new RegExp(invited) })
        .getByRole('cell', { name: 'member' })
        .waitFor();
      expect((await fixture.smtp.waitForMail(invited)).text).toContain('/accept-invitation?token=');
      const pending = await call(app, 'get', `/api/organizations/${id}/invitations`, admin.token);
      const listed = Array.isArray(pending.body.data) ? pending.body.data : pending.body.data.items;
      expect(listed.map((row: { email: string }) => row.email)).toEqual([invited]);

      // Withdrawn after the question is answered.
      await invitations.getByRole('button', { name: `Withdraw the invitation of ${invited}` }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Withdraw the invitation' }).click();
      await status(page, `Invitation of ${invited} withdrawn.`);
      await invitations.getByText('No pending invitation.').waitFor();

      // A member (added by the API, as an administrator may) is given owner beside member.
      const added = await call(app, 'post', `/api/organizations/${id}/members`, admin.token, {
        user_id: joiner.id,
        role_ids: [(await db.query(`SELECT id FROM organization_roles WHERE name = 'member'`))[0].id],
      });
      expect(added.status).toBe(201);
      await page.reload();
      await members.getByRole('cell', { name: joiner.email, exact: true }).waitFor();
      await members.getByRole('button', { name: `Change the roles of ${joiner.email}` }).click();
      const editor = page.getByRole('region', { name: `Roles of ${joiner.email}` });
      await editor.getByLabel('Owner', { exact: true }).check();
      await editor.getByRole('button', { name: 'Save roles' }).click();
      await status(page, `Roles of ${joiner.email} saved.`);
      expect(await rolesOf(id, joiner.id)).toEqual(['member', 'owner']);
      await members
        .getByRole('row', { name: new RegExp(joiner.email) })
        .getByRole('cell', { name: 'member, owner' })
        .waitFor();

      // Removed after the question is answered.
      await members.getByRole('button', { name: `Remove ${joiner.email}` }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Remove the member' }).click();
      await status(page, `${joiner.email} removed.`);
      await members.getByRole('cell', { name: joiner.email, exact: true }).waitFor({ state: 'detached' });
      const after = await call(app, 'get', `/api/organizations/${id}/members`, admin.token);
      expect(after.body.data.items.map((row: { user_id: string }) => row.user_id)).toEqual([admin.id]);
      await page.screenshot({ path: path.join(ARTIFACTS, 'console-organization.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('edits the organization-role template: a new role with a permission matrix, then changed; system roles offer no delete', async () => {
    const name = `approver-${randomUUID().slice(0, 8)}`;
    const permission = `invoices-${randomUUID().slice(0, 8)}.approve`;
    const page = await signedIn(admin);
    try {
      await screens(page).getByRole('link', { name: 'Organization permissions', exact: true }).click();
      await page.getByRole('heading', { name: 'Organization permissions', level: 1 }).waitFor();
      const newPermission = page.getByRole('region', { name: 'New organization permission' });
      await newPermission.getByLabel('Name (resource.action)').fill(permission);
      await newPermission.getByLabel('Display name').fill('Approve invoices');
      await newPermission.getByRole('button', { name: 'Create organization permission' }).click();
      await status(page, `Organization permission ${permission} created.`);

      await screens(page).getByRole('link', { name: 'Organization roles', exact: true }).click();
      await page.getByRole('heading', { name: 'Organization roles', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'owner', exact: true }).waitFor();
      const newRole = page.getByRole('region', { name: 'New organization role' });
      await newRole.getByLabel('Name', { exact: true }).fill(name);
      await newRole.getByLabel('View Members (members.view)').check();
      await newRole.getByRole('button', { name: 'Create organization role' }).click();
      await status(page, `Organization role ${name} created.`);

      await page.getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { name: `Organization role ${name}`, level: 1 }).waitFor();
      await page.getByLabel(`Approve invoices (${permission})`).check();
      await page.getByRole('button', { name: 'Save organization role' }).click();
      await status(page, 'Organization role saved.');
      const roles = await call(app, 'get', '/api/admin/organization-roles', admin.token);
      const saved = (Array.isArray(roles.body.data) ? roles.body.data : roles.body.data.items).find(
        (role: { name: string }) => role.name === name,
      );
      expect(saved.permissions.map((held: { name: string }) => held.name).sort()).toEqual(
        ['members.view', permission].sort(),
      );
      // An instance role knows nothing of it.
      expect(JSON.stringify((await call(app, 'get', '/api/admin/roles', admin.token)).body)).not.toContain(name);

      await page.getByRole('link', { name: 'All organization roles' }).click();
      await page.getByRole('link', { name: 'owner', exact: true }).click();
      await page.getByRole('heading', { name: 'Organization role owner', level: 1 }).waitFor();
      await page.getByText('A system organization role: it cannot be renamed or deleted.').waitFor();
      expect(await page.getByRole('button', { name: 'Delete organization role' }).count()).toBe(0);

      await page.goto(`${baseUrl}/admin#/organization-roles/${saved.id}`);
      await page.getByRole('button', { name: 'Delete organization role' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Delete the organization role' }).click();
      await page.getByRole('heading', { name: 'Organization roles', level: 1 }).waitFor();
      expect((await call(app, 'get', `/api/admin/organization-roles/${saved.id}`, admin.token)).status).toBe(404);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('hides the organization screens from an account without their permission, and a reader gets no control that changes', async () => {
    const usersOnly = await callerWithOnlyPermissions(app, db, ['users.view']);
    let page = await signedIn(usersOnly);
    try {
      expect(await screens(page).getByRole('link').allInnerTexts()).toEqual(['Users']);
      await page.goto(`${baseUrl}/admin#/organizations`);
      await page.getByText('This account may not open this screen.').waitFor();
      await page.goto(`${baseUrl}/admin#/organization-roles`);
      await page.getByText('This account may not open this screen.').waitFor();
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }

    const owned = await call(app, 'post', '/api/organizations', admin.token, {
      slug: `read-${randomUUID().slice(0, 8)}`,
      name: 'Read Only Co',
    });
    const reader = await callerWithOnlyPermissions(app, db, ['organizations.view']);
    page = await signedIn(reader);
    try {
      expect(await screens(page).getByRole('link').allInnerTexts()).toEqual(['Organizations']);
      await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor();
      expect(await page.getByRole('region', { name: 'New organization' }).count()).toBe(0);
      await page.goto(`${baseUrl}/admin#/organizations/${owned.body.data.id}`);
      await page.getByRole('heading', { name: 'Read Only Co', level: 1 }).waitFor();
      await page
        .getByRole('region', { name: 'Members' })
        .getByRole('cell', { name: admin.email, exact: true })
        .waitFor();
      expect(await page.getByRole('region', { name: 'Invitations' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /remove|roles|save|delete|send|withdraw/i }).count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('fits a phone: the organizations list and an organization at 390 pixels wide', async () => {
    const created = await call(app, 'post', '/api/organizations', admin.token, {
      slug: `phone-${randomUUID().slice(0, 8)}`,
      name: 'Pocket Organization',
    });
    const page = await signedIn(admin, PHONE);
    try {
      await page.goto(`${baseUrl}/admin#/organizations`);
      await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor();
      await page.getByText(/^Page 1 of \d+/).waitFor();
      await page.screenshot({ path: path.join(ARTIFACTS, 'console-organizations-phone.png'), fullPage: true });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
      await page.goto(`${baseUrl}/admin#/organizations/${created.body.data.id}`);
      await page.getByRole('heading', { name: 'Pocket Organization', level: 1 }).waitFor();
      await page
        .getByRole('region', { name: 'Members' })
        .getByRole('cell', { name: admin.email, exact: true })
        .waitFor();
      await page.getByRole('region', { name: 'Invitations' }).getByLabel('Member', { exact: true }).waitFor();
      await page.screenshot({ path: path.join(ARTIFACTS, 'console-organization-phone.png'), fullPage: true });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
