import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ClientsService } from '../../src/clients/index.js';
import { agedCopy, decodeJwt, registerUser, type RegisteredUser } from '../support/auth-factory.js';
import { freePort } from '../support/free-port.js';
import { call, callerWithPermissions } from '../support/rbac-factory.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { createTestApp } from '../support/test-app.js';
import { pkce } from '../provider/provider-browser.js';
import { MockUpstream, type UpstreamPerson } from './mock-upstream.js';

const CLIENT_ID = 'upstream-pages-web';
const PHONE = { width: 360, height: 640 };

/**
 * Upstream sign-in as a person meets it: Debian's Chromium on the provider's sign-in page presses
 * "Continue with <name>", is signed in at a real OpenID provider on a loopback port
 * (oauth2-mock-server, which signs the scripted person in at once) and comes back through the
 * service to the relying party, which exchanges its code for tokens. The linking rules of the
 * contract as the page shows them; the attacks one by one are in upstream-sign-in.e2e-spec.ts.
 */
describe('upstream sign-in through the sign-in pages in Chromium', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  let smtp: SmtpSink;
  let browser: Browser;
  let baseUrl: string;
  let redirectUri: string;
  let clientSecret: string;
  const upstream = new MockUpstream();

  beforeAll(async () => {
    await upstream.start();
    smtp = await SmtpSink.start();
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;
    redirectUri = `${baseUrl}/callback`;
    app = await createTestApp({ env: { APP_URL: baseUrl, ISSUER: baseUrl, SMTP_URL: smtp.url } });
    await app.listen(port, '127.0.0.1');
    db = app.get(DataSource);
    const { secret } = await app.get(ClientsService).register(
      CLIENT_ID,
      {
        name: 'Web app',
        type: 'confidential',
        redirectUris: [redirectUri],
        postLogoutRedirectUris: [],
        firstParty: true,
        backchannelLogoutUri: null,
      },
      'admin',
    );
    clientSecret = secret ?? '';
    const admin = await callerWithPermissions(app, db, ['settings.view', 'settings.edit']);
    for (const provider of [
      { slug: 'trusted', name: 'Trusted Corp', trust_email: true },
      { slug: 'plain', name: 'Plain Login', client_id: 'plainClient' },
    ]) {
      const res = await call(app, 'post', '/api/admin/identity-providers', admin.token, {
        type: 'oidc',
        issuer: upstream.issuer,
        client_id: 'serviceAtUpstream',
        client_secret: 'upstream-client-secret-value',
        ...provider,
      });
      expect(res.status).toBe(201);
    }
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await smtp?.stop();
    await upstream.stop();
  });

  /** A fresh browser at a phone's width; `close` ends it. */
  async function phonePage(): Promise<{ page: Page; close: () => Promise<void> }> {
    const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    return { page, close: () => context.close() };
  }

  /** The relying party's sign-in page; answers the PKCE verifier it will need for its code. */
  async function openSignInPage(page: Page): Promise<string> {
    const pair = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: redirectUri,
      scope: 'openid email',
      state: 'rp-state',
      nonce: 'rp-nonce',
      code_challenge: pair.challenge,
      code_challenge_method: 'S256',
    });
    await page.goto(`${baseUrl}/api/auth/authorize?${query.toString()}`);
    return pair.verifier;
  }

  /** The relying party, back at its redirect URI, exchanges the code: the ID token's claims. */
  async function relyingPartyTokens(page: Page, verifier: string): Promise<Record<string, unknown>> {
    await page.waitForURL((url) => url.href.startsWith(`${redirectUri}?`));
    const arrived = new URL(page.url());
    expect(arrived.searchParams.get('state')).toBe('rp-state');
    const res = await request(app.getHttpServer())
      .post('/api/auth/token')
      .type('form')
      .auth(CLIENT_ID, clientSecret)
      .send(
        new URLSearchParams({
          grant_type: 'authorization_code',
          code: arrived.searchParams.get('code')!,
          redirect_uri: redirectUri,
          code_verifier: verifier,
        }).toString(),
      );
    expect(res.status).toBe(200);
    expect(res.body.access_token).toEqual(expect.any(String));
    const claims = decodeJwt(res.body.id_token).payload;
    expect(claims.nonce).toBe('rp-nonce');
    return claims;
  }

  const emailOf = () => `upstream-browser-${randomUUID()}@example.com`;
  const person = (email: string, emailVerified = true): UpstreamPerson => ({
    sub: `sub-${randomUUID()}`,
    email,
    email_verified: emailVerified,
    name: 'Upstream Person',
  });
  const identitiesOf = async (userId: string): Promise<{ subject: string }[]> =>
    db.query(`SELECT subject FROM upstream_identities WHERE user_id = $1`, [userId]);
  async function verifiedHolder(): Promise<RegisteredUser> {
    const holder = await registerUser(app, { email: emailOf() });
    await db.query(`UPDATE users SET email_verified_at = now() WHERE id = $1`, [holder.id]);
    return holder;
  }

  it('"Continue with <name>" signs a new person in at the upstream and the relying party gets its code and tokens', async () => {
    const email = emailOf();
    const someone = person(email);
    upstream.person = someone;
    const { page, close } = await phonePage();
    try {
      const verifier = await openSignInPage(page);
      await page.getByRole('button', { name: 'Continue with Plain Login' }).waitFor();
      await page.getByRole('button', { name: 'Continue with Trusted Corp' }).click();
      const claims = await relyingPartyTokens(page, verifier);
      expect(claims.email).toBe(email);
      expect(claims.amr).toEqual(['fed']);
      const [user] = await db.query(`SELECT id FROM users WHERE email = $1`, [email]);
      expect(claims.sub).toBe(user.id);
      expect(await identitiesOf(user.id)).toEqual([{ subject: someone.sub }]);
    } finally {
      await close();
    }
  }, 60_000);

  it('a trusted provider saying email_verified links to the verified account at once, and its holder is mailed', async () => {
    const holder = await verifiedHolder();
    const someone = person(holder.email);
    upstream.person = someone;
    const before = smtp.mailsTo(holder.email).length;
    const { page, close } = await phonePage();
    try {
      const verifier = await openSignInPage(page);
      await page.getByRole('button', { name: 'Continue with Trusted Corp' }).click();
      expect((await relyingPartyTokens(page, verifier)).sub).toBe(holder.id);
      expect(await identitiesOf(holder.id)).toEqual([{ subject: someone.sub }]);
      const mail = await smtp.waitForMail(holder.email, before + 1);
      expect(mail.text).toContain('An identity at an outside sign-in provider was linked to your account');
    } finally {
      await close();
    }
  }, 60_000);

  it.each([
    ['a provider not trusted for email, though it says email_verified', 'plain', 'Plain Login', true],
    ['a trusted provider that says email_verified false', 'trusted', 'Trusted Corp', false],
  ] as const)(
    'no silent merge with %s: the page asks to sign in to the account first, and that sign-in links it',
    async (_case, slug, name, emailVerified) => {
      const holder = await verifiedHolder();
      const someone = person(holder.email, emailVerified);
      upstream.person = someone;
      const { page, close } = await phonePage();
      try {
        const verifier = await openSignInPage(page);
        await page.getByRole('button', { name: `Continue with ${name}` }).click();
        await page
          .getByText(`An account already uses this address. Sign in to it to link your ${name} identity.`)
          .waitFor();
        expect(page.url().startsWith(redirectUri)).toBe(false);
        expect(await identitiesOf(holder.id)).toEqual([]);

        await page.getByLabel('Email').fill(holder.email);
        await page.getByLabel('Password').fill(holder.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        expect((await relyingPartyTokens(page, verifier)).sub).toBe(holder.id);
        expect(await identitiesOf(holder.id)).toEqual([{ subject: someone.sub }]);
      } finally {
        await close();
      }
    },
    60_000,
  );

  it('linking from the account needs fresh authentication; the linked identity then signs in to the account', async () => {
    const holder = await registerUser(app, { email: emailOf() });
    const someone = person(emailOf(), false);
    upstream.person = someone;
    const { page, close } = await phonePage();
    try {
      // The admin console's page: a page of the service's origin, from which its scripts may call the API.
      await page.goto(`${baseUrl}/admin`);
      const startLink = (token: string) =>
        page.evaluate(
          `fetch('/api/account/identities/trusted', { method: 'POST', headers: { authorization: 'Bearer ${token}', 'content-type': 'application/json' }, body: '{}' })
             .then(async (res) => ({ status: res.status, body: await res.json() }))`,
        ) as Promise<{ status: number; body: { data?: { authorization_url: string }; error?: { code: string } } }>;

      const stale = await agedCopy(holder.tokens.access_token, 3600);
      const refused = await startLink(stale);
      expect(refused.status).toBe(403);
      expect(refused.body.error!.code).toBe('REAUTHENTICATION_REQUIRED');

      const proved = await call(app, 'post', '/api/account/reauthenticate', stale, { password: holder.password });
      expect(proved.status).toBe(200);
      const started = await startLink(proved.body.data.access_token);
      expect(started.status).toBe(200);
      await page.goto(started.body.data!.authorization_url);
      await page.getByText('Your Trusted Corp identity is linked to your account.').waitFor();
      expect(await identitiesOf(holder.id)).toEqual([{ subject: someone.sub }]);

      const verifier = await openSignInPage(page);
      await page.getByRole('button', { name: 'Continue with Trusted Corp' }).click();
      expect((await relyingPartyTokens(page, verifier)).sub).toBe(holder.id);
    } finally {
      await close();
    }
  }, 60_000);
});
