import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithPermissions, type Caller } from '../support/rbac-factory.js';
import { ProviderBrowser } from '../provider/provider-browser.js';
import { followUpstream, MockUpstream } from './mock-upstream.js';

const ISSUER = 'https://auth.example.test';
const SECRET = 'the-upstream-client-secret-7f3a9c';

describe('upstream identity providers: the admin API', () => {
  const fixture = useTestApp({ env: { ISSUER } });
  let app: NestFastifyApplication;
  let db: DataSource;
  let editor: Caller;
  let viewer: Caller;
  const upstream = new MockUpstream();

  beforeAll(async () => {
    ({ app, db } = fixture);
    await upstream.start();
    editor = await callerWithPermissions(app, db, ['settings.view', 'settings.edit']);
    viewer = await callerWithPermissions(app, db, ['settings.view']);
  });
  afterAll(() => upstream.stop());

  const slug = () => `corp-${randomUUID().slice(0, 8)}`;
  const body = (fields: Record<string, unknown> = {}) => ({
    slug: slug(),
    name: 'Corp Login',
    type: 'oidc',
    issuer: upstream.issuer,
    client_id: 'serviceclient',
    client_secret: SECRET,
    ...fields,
  });

  it('creates a provider under settings.edit: defaults, the callback URL, never the secret; sealed at rest; audited', async () => {
    const input = body();
    const res = await call(app, 'post', '/api/admin/identity-providers', editor.token, input);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      slug: input.slug,
      name: 'Corp Login',
      type: 'oidc',
      issuer: upstream.issuer,
      client_id: 'serviceclient',
      scopes: [],
      trust_email: false,
      allow_sign_up: true,
      enabled: true,
      redirect_uri: `${ISSUER}/api/auth/authorize/upstream/${input.slug}/callback`,
    });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    const listed = await call(app, 'get', '/api/admin/identity-providers', viewer.token);
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
    expect(listed.body.data.items.map((item: { slug: string }) => item.slug)).toContain(input.slug);
    const one = await call(app, 'get', `/api/admin/identity-providers/${input.slug}`, viewer.token);
    expect(one.body.data.slug).toBe(input.slug);

    const [row] = await db.query(`SELECT client_secret_sealed FROM upstream_providers WHERE slug = $1`, [input.slug]);
    expect(row.client_secret_sealed).toMatch(/^v1\./);
    expect(row.client_secret_sealed).not.toContain(SECRET);
    expect(Buffer.from(row.client_secret_sealed.slice(3), 'base64url').toString('latin1')).not.toContain(SECRET);

    const [event] = await db.query(
      `SELECT actor_id, target_type, target_id, details::text AS details FROM audit_events WHERE type = 'identity_provider.create' AND target_id = $1`,
      [input.slug],
    );
    expect(event).toMatchObject({ actor_id: editor.id, target_type: 'identity_provider', target_id: input.slug });
    expect(event.details).not.toContain(SECRET);
  });

  it('settings.view reads but cannot change; nobody without it reads', async () => {
    const created = await call(app, 'post', '/api/admin/identity-providers', viewer.token, body());
    expect(created.status).toBe(403);
    expect(created.body.error.code).toBe('FORBIDDEN');
    const nobody = await callerWithPermissions(app, db, []);
    expect((await call(app, 'get', '/api/admin/identity-providers', nobody.token)).status).toBe(403);
    expect((await call(app, 'get', '/api/admin/identity-providers')).status).toBe(401);
  });

  it('refuses an issuer whose discovery cannot be read, a plain-http one off loopback, unknown fields, and a taken slug', async () => {
    const unreadable = await call(
      app,
      'post',
      '/api/admin/identity-providers',
      editor.token,
      body({ issuer: 'http://127.0.0.1:9/nothing' }),
    );
    expect(unreadable.status).toBe(400);
    expect(unreadable.body.error.code).toBe('VALIDATION_FAILED');
    expect(unreadable.body.error.details[0].field).toBe('issuer');
    const insecure = await call(
      app,
      'post',
      '/api/admin/identity-providers',
      editor.token,
      body({ issuer: 'http://idp.example.com' }),
    );
    expect(insecure.status).toBe(400);
    const unknown = await call(app, 'post', '/api/admin/identity-providers', editor.token, body({ colour: 'red' }));
    expect(unknown.status).toBe(400);
    const noIssuer = await call(
      app,
      'post',
      '/api/admin/identity-providers',
      editor.token,
      body({ issuer: undefined }),
    );
    expect(noIssuer.status).toBe(400);
    const input = body();
    expect((await call(app, 'post', '/api/admin/identity-providers', editor.token, input)).status).toBe(201);
    const again = await call(app, 'post', '/api/admin/identity-providers', editor.token, { ...input, name: 'Other' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
  });

  it('a GitHub provider needs no issuer', async () => {
    const res = await call(app, 'post', '/api/admin/identity-providers', editor.token, {
      slug: slug(),
      name: 'GitHub',
      type: 'github',
      client_id: 'gh-client',
      client_secret: SECRET,
    });
    expect(res.status).toBe(201);
    expect(res.body.data.issuer).toBeNull();
  });

  it('updates and deletes, audited; a new secret is sealed anew; an unknown slug is 404', async () => {
    const input = body();
    await call(app, 'post', '/api/admin/identity-providers', editor.token, input);
    const [before] = await db.query(`SELECT client_secret_sealed FROM upstream_providers WHERE slug = $1`, [
      input.slug,
    ]);
    const updated = await call(app, 'put', `/api/admin/identity-providers/${input.slug}`, editor.token, {
      name: 'Corp SSO',
      trust_email: true,
      client_secret: 'another-secret-value-0000',
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Corp SSO', trust_email: true, slug: input.slug });
    const [after] = await db.query(`SELECT client_secret_sealed FROM upstream_providers WHERE slug = $1`, [input.slug]);
    expect(after.client_secret_sealed).not.toBe(before.client_secret_sealed);
    expect(
      (await call(app, 'put', `/api/admin/identity-providers/${input.slug}`, editor.token, { slug: 'x' })).status,
    ).toBe(400);
    expect((await call(app, 'delete', `/api/admin/identity-providers/${input.slug}`, viewer.token)).status).toBe(403);
    expect((await call(app, 'delete', `/api/admin/identity-providers/${input.slug}`, editor.token)).status).toBe(200);
    expect((await call(app, 'get', `/api/admin/identity-providers/${input.slug}`, editor.token)).status).toBe(404);
    const types: { type: string }[] = await db.query(
      `SELECT type FROM audit_events WHERE target_id = $1 ORDER BY created_at`,
      [input.slug],
    );
    expect(types.map((event) => event.type)).toEqual([
      'identity_provider.create',
      'identity_provider.update',
      'identity_provider.delete',
    ]);
  });
});

describe('the holder’s identities: list, link from the account, unlink', () => {
  const fixture = useTestApp({ env: { ISSUER }, smtp: true });
  let app: NestFastifyApplication;
  let db: DataSource;
  const upstream = new MockUpstream();

  beforeAll(async () => {
    ({ app, db } = fixture);
    await upstream.start();
    const editor = await callerWithPermissions(app, db, ['settings.view', 'settings.edit']);
    for (const [slugName, name] of [
      ['first', 'First IdP'],
      ['second', 'Second IdP'],
    ]) {
      const res = await call(app, 'post', '/api/admin/identity-providers', editor.token, {
        slug: slugName,
        name,
        type: 'oidc',
        issuer: upstream.issuer,
        client_id: 'serviceclient',
        client_secret: SECRET,
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => upstream.stop());

  /** Starts a link from the account in `browser` (its cookie jar gets the binding) and follows it. */
  async function linkFromAccount(token: string, slugName: string, sub: string, browser = new ProviderBrowser(app)) {
    upstream.person = { sub, email: `someone-${randomUUID()}@example.com`, email_verified: true };
    const started = await call(app, 'post', `/api/account/identities/${slugName}`, token, {});
    expect(started.status).toBe(200);
    const cookie = /auth_upstream=([^;]+)/.exec(String(started.headers['set-cookie']))![1];
    browser.cookies.set('auth_upstream', cookie);
    return followUpstream(browser, started.body.data.authorization_url);
  }

  it('links from the account with fresh authentication, lists the identity, mails the holder; an identity of another account is refused', async () => {
    const holder = await registerUser(app);
    const sub = `sub-${randomUUID()}`;
    const page = await linkFromAccount(holder.tokens.access_token, 'first', sub);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Your First IdP identity is linked to your account.');
    const listed = await call(app, 'get', '/api/account/identities', holder.tokens.access_token);
    expect(listed.body.data.total).toBe(1);
    expect(listed.body.data.items[0]).toMatchObject({
      provider: 'first',
      email: expect.stringContaining('@example.com'),
    });
    expect(Object.keys(listed.body.data.items[0]).sort()).toEqual([
      'email',
      'id',
      'last_used_at',
      'linked_at',
      'provider',
    ]);
    const mail = await fixture.smtp!.waitForMail(holder.email);
    expect(mail.text).toContain('was linked to your account');

    const other = await registerUser(app);
    const taken = await linkFromAccount(other.tokens.access_token, 'first', sub);
    expect(taken.status).toBe(409);
    expect((await call(app, 'get', '/api/account/identities', other.tokens.access_token)).body.data.total).toBe(0);
  });

  it('a link answer carried to a browser that did not start it links nothing', async () => {
    const holder = await registerUser(app);
    upstream.person = { sub: `sub-${randomUUID()}` };
    const started = await call(app, 'post', '/api/account/identities/first', holder.tokens.access_token, {});
    const page = await followUpstream(new ProviderBrowser(app), started.body.data.authorization_url);
    expect(page.status).toBe(400);
    expect((await call(app, 'get', '/api/account/identities', holder.tokens.access_token)).body.data.total).toBe(0);
  });

  it('unlinks with a mail to the holder; the last way to sign in cannot be unlinked (409)', async () => {
    const holder = await registerUser(app);
    await linkFromAccount(holder.tokens.access_token, 'first', `sub-${randomUUID()}`);
    await linkFromAccount(holder.tokens.access_token, 'second', `sub-${randomUUID()}`);
    const items = (await call(app, 'get', '/api/account/identities', holder.tokens.access_token)).body.data.items;
    expect(items).toHaveLength(2);
    // With a password, both identities may go.
    expect(
      (await call(app, 'delete', `/api/account/identities/${items[0].id}`, holder.tokens.access_token)).status,
    ).toBe(200);
    await fixture.smtp!.waitForMail(holder.email, 3);
    expect(
      fixture.smtp!.mailsTo(holder.email).some((mail) => mail.text.includes('was unlinked from your account')),
    ).toBe(true);
    // Without one (an account an upstream made), the last identity may not.
    await db.query(`UPDATE users SET password_set = false WHERE id = $1`, [holder.id]);
    const last = await call(app, 'delete', `/api/account/identities/${items[1].id}`, holder.tokens.access_token);
    expect(last.status).toBe(409);
    expect(last.body.error.code).toBe('CONFLICT');
    expect((await call(app, 'get', '/api/account/identities', holder.tokens.access_token)).body.data.total).toBe(1);
    const unknown = await call(app, 'delete', `/api/account/identities/${randomUUID()}`, holder.tokens.access_token);
    expect(unknown.status).toBe(404);
  });

  it('a disabled provider links nothing from the account', async () => {
    const editor = await callerWithPermissions(app, db, ['settings.view', 'settings.edit']);
    const holder = await registerUser(app);
    upstream.person = { sub: `sub-${randomUUID()}` };
    const started = await call(app, 'post', '/api/account/identities/second', holder.tokens.access_token, {});
    const cookie = /auth_upstream=([^;]+)/.exec(String(started.headers['set-cookie']))![1];
    await call(app, 'put', '/api/admin/identity-providers/second', editor.token, { enabled: false });
    try {
      const browser = new ProviderBrowser(app);
      browser.cookies.set('auth_upstream', cookie);
      const page = await followUpstream(browser, started.body.data.authorization_url);
      expect(page.status).toBe(403);
      expect((await call(app, 'get', '/api/account/identities', holder.tokens.access_token)).body.data.total).toBe(0);
      const refused = await call(app, 'post', '/api/account/identities/second', holder.tokens.access_token, {});
      expect(refused.status).toBe(404);
    } finally {
      await call(app, 'put', '/api/admin/identity-providers/second', editor.token, { enabled: true });
    }
  });
});
