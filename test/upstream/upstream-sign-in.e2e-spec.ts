import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { decodeJwt, login, registerUser, type RegisteredUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { call, callerWithPermissions, type Caller } from '../support/rbac-factory.js';
import { ClientsService } from '../../src/clients/index.js';
import { formFields, pkce, ProviderBrowser, redirectParameters } from '../provider/provider-browser.js';
import {
  answerAt,
  continueWith,
  followUpstream,
  MockUpstream,
  pressContinueWith,
  type UpstreamPerson,
} from './mock-upstream.js';

const ISSUER = 'https://auth.example.test';
const WEB = 'https://web.example.test/callback';

describe('signing in through an upstream identity provider, and the linking rules', () => {
  const fixture = useTestApp({ env: { ISSUER }, smtp: true });
  let app: NestFastifyApplication;
  let db: DataSource;
  let admin: Caller;
  const web = { id: 'upstream-web', secret: '' };
  /** One upstream, configured as a trusted provider (`trusted`) and as an untrusted one (`plain`). */
  const upstream = new MockUpstream();

  beforeAll(async () => {
    ({ app, db } = fixture);
    await upstream.start();
    const { secret } = await app.get(ClientsService).register(
      web.id,
      {
        name: 'Web',
        type: 'confidential',
        redirectUris: [WEB],
        postLogoutRedirectUris: [],
        backchannelLogoutUri: null,
        firstParty: true,
      },
      'admin',
    );
    web.secret = secret ?? '';
    admin = await callerWithPermissions(app, db, ['settings.view', 'settings.edit']);
    await addProvider({ slug: 'trusted', name: 'Trusted Corp', trust_email: true });
    await addProvider({ slug: 'plain', name: 'Plain Login', client_id: 'plainClient' });
  });
  afterAll(() => upstream.stop());

  /** Client ids without characters RFC 6749 form-encodes: the mock reads HTTP Basic without decoding it. */
  async function addProvider(fields: Record<string, unknown>) {
    const res = await call(app, 'post', '/api/admin/identity-providers', admin.token, {
      type: 'oidc',
      issuer: upstream.issuer,
      client_id: 'serviceAtUpstream',
      client_secret: 'upstream-client-secret-value',
      ...fields,
    });
    expect(res.status).toBe(201);
    return res.body.data;
  }

  /** The sign-in page of the web client, in `browser`. */
  async function signInPage(browser: ProviderBrowser) {
    const pair = pkce();
    const page = await browser.authorize({
      response_type: 'code',
      client_id: web.id,
      redirect_uri: WEB,
      scope: 'openid email profile',
      state: 'client-state',
      nonce: 'client-nonce',
      code_challenge: pair.challenge,
      code_challenge_method: 'S256',
    });
    expect(page.status).toBe(200);
    return { page, verifier: pair.verifier };
  }

  /** The person signs in at the upstream `slug` from the web client's sign-in page. */
  async function viaUpstream(person: UpstreamPerson, slug = 'trusted', browser = new ProviderBrowser(app)) {
    upstream.person = person;
    const { page, verifier } = await signInPage(browser);
    const back = await continueWith(browser, page, slug);
    return { browser, back, verifier };
  }

  /** The code of a redirect back to the web client, exchanged: its ID token's claims. */
  async function idTokenOf(back: request.Response, verifier: string) {
    expect(back.status).toBe(302);
    const params = redirectParameters(back);
    expect(params.get('state')).toBe('client-state');
    const res = await request(app.getHttpServer())
      .post('/api/auth/token')
      .type('form')
      .auth(web.id, web.secret)
      .send(
        new URLSearchParams({
          grant_type: 'authorization_code',
          code: params.get('code')!,
          redirect_uri: WEB,
          code_verifier: verifier,
        }).toString(),
      );
    expect(res.status).toBe(200);
    return { claims: decodeJwt(res.body.id_token).payload, accessToken: res.body.access_token as string };
  }

  const person = (email: string, emailVerified = true): UpstreamPerson => ({
    sub: `sub-${randomUUID()}`,
    email,
    email_verified: emailVerified,
    name: 'Upstream Person',
  });
  const emailOf = () => `upstream-${randomUUID()}@example.com`;
  const identitiesOf = async (userId: string): Promise<{ subject: string }[]> =>
    db.query(`SELECT subject FROM upstream_identities WHERE user_id = $1`, [userId]);
  const userByEmail = async (email: string) =>
    (await db.query(`SELECT id, email_verified_at, password_set FROM users WHERE email = $1`, [email]))[0];

  it('shows a button "Continue with <name>" per enabled provider on the sign-in page', async () => {
    const { page } = await signInPage(new ProviderBrowser(app));
    expect(page.text).toContain('<button type="submit">Continue with Trusted Corp</button>');
    expect(page.text).toContain('<button type="submit">Continue with Plain Login</button>');
    // The page's forms may go on to the upstream, and nowhere else but the client.
    expect(page.headers['content-security-policy']).toContain(new URL(upstream.issuer).origin);
  });

  it('rule 2: an unknown identity with a new address makes an account (no password, verified on a trusted word), one factor fed, back to the client', async () => {
    const email = emailOf();
    const someone = person(email);
    const { back, verifier } = await viaUpstream(someone);
    const { claims } = await idTokenOf(back, verifier);
    expect(claims.amr).toEqual(['fed']);
    expect(claims.email).toBe(email);
    const user = await userByEmail(email);
    expect(user.email_verified_at).not.toBeNull();
    expect(user.password_set).toBe(false);
    expect(await identitiesOf(user.id)).toEqual([{ subject: someone.sub }]);

    // Rule 1: the same (provider, sub) signs in to the same account, even with another address upstream.
    const again = await viaUpstream({ ...someone, email: emailOf() });
    const second = await idTokenOf(again.back, again.verifier);
    expect(second.claims.sub).toBe(user.id);
  });

  it('rule 2: on a provider not trusted for email, the new account’s address stays unverified', async () => {
    const email = emailOf();
    const { back, verifier } = await viaUpstream(person(email), 'plain');
    await idTokenOf(back, verifier);
    expect((await userByEmail(email)).email_verified_at).toBeNull();
  });

  it('classic-federated merge and unexpired session: a trusted upstream’s first proof of the address ends the pre-hijacker’s password and sessions', async () => {
    const email = emailOf();
    const attacker = await registerUser(app, { email });
    const victim = person(email);
    const { back, verifier } = await viaUpstream(victim);
    const { claims } = await idTokenOf(back, verifier);
    expect(claims.sub).toBe(attacker.id); // the account of the address, now the victim's own
    // The attacker's session, refresh token and password are gone.
    expect((await call(app, 'get', '/api/auth/me', attacker.tokens.access_token)).status).toBe(401);
    const refreshed = await request(app.getHttpServer())
      .post('/api/auth/refresh')
      .send({ refresh_token: attacker.tokens.refresh_token });
    expect(refreshed.status).toBe(401);
    const byPassword = await login(app, { email, password: attacker.password });
    expect(byPassword.status).toBe(401);
    expect(byPassword.body.error.code).toBe('INVALID_CREDENTIALS');
    expect(await identitiesOf(attacker.id)).toEqual([{ subject: victim.sub }]);
  });

  it('trojan identifier: an identity the pre-hijacker linked before the first proof of the address is removed by it', async () => {
    const email = emailOf();
    const attacker = await registerUser(app, { email });
    // The attacker links their own upstream identity to the account they registered with the victim's address.
    const trojan: UpstreamPerson = { sub: `sub-${randomUUID()}`, email: emailOf(), email_verified: true };
    upstream.person = trojan;
    const started = await call(app, 'post', '/api/account/identities/plain', attacker.tokens.access_token, {});
    const browser = new ProviderBrowser(app);
    browser.cookies.set('auth_upstream', /auth_upstream=([^;]+)/.exec(String(started.headers['set-cookie']))![1]);
    expect((await followUpstream(browser, started.body.data.authorization_url)).status).toBe(200);
    expect(await identitiesOf(attacker.id)).toEqual([{ subject: trojan.sub }]);

    // The holder proves the address through a trusted upstream: what came before ends, the trojan included.
    const victim = person(email);
    const { back, verifier } = await viaUpstream(victim);
    expect((await idTokenOf(back, verifier)).claims.sub).toBe(attacker.id);
    expect(await identitiesOf(attacker.id)).toEqual([{ subject: victim.sub }]);
    const again = await viaUpstream(trojan, 'plain');
    expect((await idTokenOf(again.back, again.verifier)).claims.sub).not.toBe(attacker.id);
  });

  it('unexpired email change: a change to the victim’s address asked before the victim signs up never completes', async () => {
    const attacker = await registerUser(app, { email: emailOf() });
    const email = emailOf();
    const asked = await call(app, 'post', '/api/account/email', attacker.tokens.access_token, { email });
    expect(asked.status).toBe(200);
    const mail = await fixture.smtp!.waitForMail(email);
    const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
    const { back, verifier } = await viaUpstream(person(email));
    const victimId = (await idTokenOf(back, verifier)).claims.sub;
    expect(victimId).not.toBe(attacker.id);
    const confirmed = await call(app, 'post', '/api/account/email/confirm', undefined, { token });
    expect(confirmed.status).not.toBe(200);
    expect((await userByEmail(email)).id).toBe(victimId);
  });

  it('rule 3: trusted, verified upstream and a verified account: linked at once, the holder is mailed, the password stays', async () => {
    const holder = await registerUser(app, { email: emailOf() });
    await db.query(`UPDATE users SET email_verified_at = now() WHERE id = $1`, [holder.id]);
    const before = fixture.smtp!.mailsTo(holder.email).length;
    const { back, verifier } = await viaUpstream(person(holder.email));
    expect((await idTokenOf(back, verifier)).claims.sub).toBe(holder.id);
    const mail = await fixture.smtp!.waitForMail(holder.email, before + 1);
    expect(mail.text).toContain('An identity at an outside sign-in provider was linked to your account');
    expect((await login(app, { email: holder.email, password: holder.password })).status).toBe(200);
  });

  /** Rule 3 without the trusted word: the sign-in page asks for the account's own factors. */
  async function linkRequired(holder: RegisteredUser, someone: UpstreamPerson, slug: string) {
    const { back, browser } = await viaUpstream(someone, slug);
    expect(back.status).toBe(200);
    expect(back.text).toContain('An account already uses this address. Sign in to it to link your');
    expect(browser.cookies.get('auth_upstream_link')).toBeDefined();
    expect(await identitiesOf(holder.id)).toEqual([]);
    return { back, browser };
  }

  it('a non-verifying provider: an upstream not trusted for email is never linked on its word, even saying email_verified', async () => {
    const holder = await registerUser(app, { email: emailOf() });
    await db.query(`UPDATE users SET email_verified_at = now() WHERE id = $1`, [holder.id]);
    const { back } = await linkRequired(holder, person(holder.email, true), 'plain');
    expect(back.headers.location).toBeUndefined();
    // And the holder's password and session are untouched.
    expect((await call(app, 'get', '/api/auth/me', holder.tokens.access_token)).status).toBe(200);
  });

  it('an upstream that says email_verified false is not linked, even on a trusted provider; a sign-in with the account’s password links it', async () => {
    const holder = await registerUser(app, { email: emailOf() });
    const someone = person(holder.email, false);
    const { back, browser } = await linkRequired(holder, someone, 'trusted');
    const signedIn = await browser.signIn(back, holder.email, holder.password);
    expect(signedIn.status).toBe(302);
    expect(await identitiesOf(holder.id)).toEqual([{ subject: someone.sub }]);
    // Rule 1 from now on: the identity signs in to its account.
    const again = await viaUpstream(someone, 'trusted');
    expect((await idTokenOf(again.back, again.verifier)).claims.sub).toBe(holder.id);
  });

  it('a link proof is bound to its identity and single use: a second upstream account cannot reuse it', async () => {
    const holder = await registerUser(app, { email: emailOf() });
    const first = person(holder.email, false);
    const { back, browser } = await linkRequired(holder, first, 'plain');
    const proof = browser.cookies.get('auth_upstream_link')!;
    expect((await browser.signIn(back, holder.email, holder.password)).status).toBe(302);
    expect(await identitiesOf(holder.id)).toEqual([{ subject: first.sub }]);

    // A second upstream account with the same address, in a browser replaying the spent proof.
    const second = person(holder.email, false);
    const other = new ProviderBrowser(app);
    upstream.person = second;
    const { page } = await signInPage(other);
    const answered = await continueWith(other, page, 'plain');
    expect(answered.text).toContain('Sign in to it to link your Plain Login identity');
    other.cookies.set('auth_upstream_link', proof);
    expect((await other.signIn(answered, holder.email, holder.password)).status).toBe(302);
    expect(await identitiesOf(holder.id)).toEqual([{ subject: first.sub }]);
  });

  it('parallel sign-ins carrying one link proof link its identity once', async () => {
    const holder = await registerUser(app, { email: emailOf() });
    const someone = person(holder.email, false);
    const { back, browser } = await linkRequired(holder, someone, 'plain');
    const results = await Promise.all(
      Array.from({ length: 4 }, () => browser.signIn(back, holder.email, holder.password)),
    );
    expect(results.map((res) => res.status)).toEqual([302, 302, 302, 302]);
    const links: unknown[] = await db.query(
      `SELECT 1 FROM audit_events WHERE type = 'upstream.link' AND actor_id = $1`,
      [holder.id],
    );
    expect(links).toHaveLength(1);
    expect(await identitiesOf(holder.id)).toEqual([{ subject: someone.sub }]);
  });

  it('a link proof made for one account links nothing when another account signs in with it', async () => {
    const holder = await registerUser(app, { email: emailOf() });
    const other = await registerUser(app, { email: emailOf() });
    const { back, browser } = await linkRequired(holder, person(holder.email, false), 'plain');
    expect((await browser.signIn(back, other.email, other.password)).status).toBe(302);
    expect(await identitiesOf(other.id)).toEqual([]);
    expect(await identitiesOf(holder.id)).toEqual([]);
  });

  it('a replayed state, or an answer carried to another browser, signs nobody in', async () => {
    const browser = new ProviderBrowser(app);
    upstream.person = person(emailOf());
    const { page } = await signInPage(browser);
    const back = await pressContinueWith(browser, page, 'trusted');
    const query = back.query;

    // Another browser (no binding cookie) with the upstream's answer.
    const thief = await new ProviderBrowser(app).get(back.path, query);
    expect(thief.status).toBe(400);
    expect(thief.text).toContain('This sign-in has expired or was already used.');
    // The state was spent by that attempt: the right browser's answer is now a replay too.
    const replay = await browser.get(back.path, query);
    expect(replay.status).toBe(400);
    expect(replay.headers.location).toBeUndefined();
  });

  it('a state is single use: the same answer twice in the same browser signs in once', async () => {
    const browser = new ProviderBrowser(app);
    upstream.person = person(emailOf());
    const { page } = await signInPage(browser);
    const back = await pressContinueWith(browser, page, 'trusted');
    const first = await browser.get(back.path, back.query);
    expect(first.status).toBe(302);
    const second = await browser.get(back.path, back.query);
    expect(second.status).toBe(400);
  });

  it.each(['signature', 'iss', 'aud', 'nonce', 'exp'] as const)(
    'a bad upstream ID token (%s) signs nobody in',
    async (tampering) => {
      const email = emailOf();
      upstream.tampering = tampering;
      try {
        const { back } = await viaUpstream(person(email));
        expect(back.status).toBe(401);
        expect(back.text).toContain('The sign-in with Trusted Corp could not be verified.');
        expect(back.headers.location).toBeUndefined();
      } finally {
        upstream.tampering = null;
      }
      expect(await userByEmail(email)).toBeUndefined();
    },
  );

  it('an account with an authenticator app still gives its second factor after an upstream sign-in', async () => {
    const email = emailOf();
    const someone = person(email);
    const first = await viaUpstream(someone);
    const { accessToken } = await idTokenOf(first.back, first.verifier);
    const enrol = await call(app, 'post', '/api/account/totp', accessToken, {});
    expect(enrol.status).toBe(200);
    const totp = URI.parse(enrol.body.data.otpauth_uri) as TOTP;
    expect((await call(app, 'post', '/api/account/totp/confirm', accessToken, { code: totp.generate() })).status).toBe(
      200,
    );
    const again = await viaUpstream(someone);
    expect(again.back.status).toBe(200);
    expect(again.back.text).toContain('<label for="code">Code</label>');
    expect(again.back.text).toContain('<button type="submit">Verify</button>');
  });

  it('an account keeps a password, a passkey and two upstream identities side by side, lists them, and loses none it did not ask to lose', async () => {
    const holder = await registerUser(app);
    const token = holder.tokens.access_token;
    const people = { trusted: person(emailOf()), plain: person(emailOf()) };
    // Two identities at two providers, linked from the account (its token is fresh: just registered).
    for (const slug of ['trusted', 'plain'] as const) {
      upstream.person = people[slug];
      const started = await call(app, 'post', `/api/account/identities/${slug}`, token, {});
      expect(started.status).toBe(200);
      const browser = new ProviderBrowser(app);
      browser.cookies.set('auth_upstream', /auth_upstream=([^;]+)/.exec(String(started.headers['set-cookie']))![1]);
      expect((await followUpstream(browser, started.body.data.authorization_url)).status).toBe(200);
    }
    // Each signs in to this account, and signing in with one keeps the other.
    for (const slug of ['trusted', 'plain'] as const) {
      const { back, verifier } = await viaUpstream(people[slug], slug);
      expect((await idTokenOf(back, verifier)).claims.sub).toBe(holder.id);
    }
    // A passkey beside them.
    const device = new SoftAuthenticator('http://localhost:3000', 'localhost');
    const options = await call(app, 'post', '/api/account/passkeys/options', token, {});
    expect(options.status).toBe(200);
    const { credential, response } = device.register(options.body.data);
    expect((await call(app, 'post', '/api/account/passkeys', token, { ...response, name: 'Laptop' })).status).toBe(201);

    const providers = async () =>
      (await call(app, 'get', '/api/account/identities', token)).body.data.items
        .map((item: { provider: string }) => item.provider)
        .sort();
    const passkeys = async () => (await call(app, 'get', '/api/account/passkeys', token)).body.data.total;
    const signInWithPasskey = async () => {
      const asked = await request(app.getHttpServer()).post('/api/auth/passkey/options').send({});
      return request(app.getHttpServer())
        .post('/api/auth/passkey/verify')
        .send(device.assert(asked.body.data, credential));
    };
    expect(await providers()).toEqual(['plain', 'trusted']);
    expect(await passkeys()).toBe(1);
    expect((await login(app, { email: holder.email, password: holder.password })).status).toBe(200);
    expect((await signInWithPasskey()).status).toBe(200);
    // With a passkey, an upstream sign-in is one factor: the page asks for the second.
    const again = await viaUpstream(people.plain, 'plain');
    expect(again.back.status).toBe(200);
    expect(again.back.text).toContain('Use a passkey');

    // Unlinking one identity takes that one only.
    const trusted = (await call(app, 'get', '/api/account/identities', token)).body.data.items.find(
      (item: { provider: string }) => item.provider === 'trusted',
    );
    expect((await call(app, 'delete', `/api/account/identities/${trusted.id}`, token)).status).toBe(200);
    expect(await providers()).toEqual(['plain']);
    expect(await passkeys()).toBe(1);
    expect((await login(app, { email: holder.email, password: holder.password })).status).toBe(200);
    expect((await signInWithPasskey()).status).toBe(200);
  });

  it('rule 1: a disabled account is refused after the upstream sign-in with ACCOUNT_DISABLED’s message', async () => {
    const someone = person(emailOf());
    const first = await viaUpstream(someone);
    const { claims } = await idTokenOf(first.back, first.verifier);
    await db.query(`UPDATE users SET disabled_at = now() WHERE id = $1`, [claims.sub]);
    const again = await viaUpstream(someone);
    expect(again.back.status).toBe(403);
    expect(again.back.text).toContain('This account is disabled.');
  });

  it('sign-up off: an unknown identity with a new address is refused', async () => {
    await addProvider({ slug: 'closed', name: 'Closed Door', allow_sign_up: false });
    const email = emailOf();
    const { back } = await viaUpstream(person(email), 'closed');
    expect(back.status).toBe(403);
    expect(await userByEmail(email)).toBeUndefined();
  });

  it('rule 5: a disabled provider signs nobody in, links nothing, and loses its button', async () => {
    await addProvider({ slug: 'soon-off', name: 'Soon Off', trust_email: true });
    const someone = person(emailOf());
    const first = await viaUpstream(someone, 'soon-off');
    await idTokenOf(first.back, first.verifier);

    // A flow started before the provider is disabled, answered after.
    const browser = new ProviderBrowser(app);
    const { page } = await signInPage(browser);
    const { action, fields } = formFields(page.text, '/upstream/soon-off');
    const toUpstream = await browser.post(action, fields);
    expect(
      (await call(app, 'put', '/api/admin/identity-providers/soon-off', admin.token, { enabled: false })).status,
    ).toBe(200);
    const back = await answerAt(toUpstream.headers.location as string);
    const answered = await browser.get(back.path, back.query);
    expect(answered.status).toBe(403);
    expect(answered.text).toContain('This sign-in provider is not available.');

    const { page: after } = await signInPage(new ProviderBrowser(app));
    expect(after.text).not.toContain('Continue with Soon Off');
    const pressed = await browser.post(action, fields);
    expect(pressed.status).toBe(400);
    expect(pressed.text).toContain('This sign-in provider is not available.');
    expect(pressed.headers.location).toBeUndefined();
  });
});
