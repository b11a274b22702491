import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import {
  decodeJwt,
  me,
  registerUser,
  setCookies,
  sleep,
  TEST_PASSWORD,
  type RegisteredUser,
} from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { ClientsService } from '../../src/clients/index.js';
import { formFields, pkce, ProviderBrowser, redirectParameters } from './provider-browser.js';

const ISSUER = 'https://auth.example.test';
const WEB = 'https://web.example.test/callback';
const LOOPBACK = 'http://127.0.0.1/callback';
const THIRD = 'https://third.example.test/cb';
const BYE = 'https://web.example.test/signed-out';
const STEP_MS = 30_000;

/** Waits out the last seconds of a time step, so codes of adjacent steps stay valid through a test. */
async function awayFromStepEdge(): Promise<void> {
  const intoStep = Date.now() % STEP_MS;
  if (intoStep > STEP_MS - 8_000) await sleep(STEP_MS - intoStep + 500);
}

describe('the OpenID provider: authorization code with PKCE through the sign-in pages', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  const fixture = useTestApp({ env: { ISSUER } });
  /** A confidential first-party client, a public first-party client, a third-party client. */
  let web: { id: string; secret: string };
  let cli: { id: string };
  let third: { id: string; secret: string };

  const server = () => app.getHttpServer();

  /** A client of the one registry, as the admin API and the CLI make them. */
  async function registerClient(
    clientId: string,
    fields: {
      name: string;
      type: 'confidential' | 'public';
      redirectUris: string[];
      postLogoutRedirectUris?: string[];
      firstParty?: boolean;
    },
  ) {
    const { secret } = await app
      .get(ClientsService)
      .register(
        clientId,
        { postLogoutRedirectUris: [], backchannelLogoutUri: null, firstParty: false, ...fields },
        'admin',
      );
    return { id: clientId, secret: secret ?? '' };
  }

  beforeAll(async () => {
    ({ app, db } = fixture);
    web = await registerClient('web-app', {
      name: 'Web <App>',
      type: 'confidential',
      redirectUris: [WEB],
      postLogoutRedirectUris: [BYE],
      firstParty: true,
    });
    cli = await registerClient('cli-app', {
      name: 'Command line',
      type: 'public',
      redirectUris: [LOOPBACK],
      firstParty: true,
    });
    third = await registerClient('third-app', { name: 'Third Party', type: 'confidential', redirectUris: [THIRD] });
  });

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

  function token(form: Record<string, string>, authorization?: string) {
    const req = request(server()).post('/api/auth/token').type('form');
    if (authorization) req.set('authorization', authorization);
    return req.send(new URLSearchParams(form).toString());
  }

  /** The query of a request of `client` to `redirectUri` with a fresh PKCE pair. */
  function authorizationQuery(clientId: string, redirectUri: string, extra: Record<string, string | undefined> = {}) {
    const pair = pkce();
    return {
      pair,
      query: {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'openid email profile offline_access',
        state: `state-${Math.random()}`,
        nonce: `nonce-${Math.random()}`,
        code_challenge: pair.challenge,
        code_challenge_method: 'S256',
        ...extra,
      } as Record<string, string | undefined>,
    };
  }

  /** Signs `user` in through the pages for the web client and answers the browser and the code. */
  async function signedInCode(user: RegisteredUser, browser = new ProviderBrowser(app)) {
    const { pair, query } = authorizationQuery(web.id, WEB);
    const page = await browser.authorize(query);
    expect(page.status).toBe(200);
    const done = await browser.signIn(page, user.email, user.password);
    expect(done.status).toBe(302);
    const params = redirectParameters(done);
    return { browser, code: params.get('code')!, verifier: pair.verifier, query, params };
  }

  async function exchangeWeb(code: string, verifier: string) {
    return token(
      { grant_type: 'authorization_code', code, redirect_uri: WEB, code_verifier: verifier },
      basic(web.id, web.secret),
    );
  }

  describe('discovery and keys', () => {
    it('announces the authorization endpoint, code with S256, the scopes, public clients and iss', async () => {
      const { body } = await request(server()).get('/.well-known/openid-configuration');
      expect(body).toMatchObject({
        issuer: ISSUER,
        authorization_endpoint: `${ISSUER}/api/auth/authorize`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: ['openid', 'profile', 'email', 'phone', 'offline_access'],
        authorization_response_iss_parameter_supported: true,
        id_token_signing_alg_values_supported: ['RS256'],
      });
      expect(body.grant_types_supported).toEqual(
        expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']),
      );
      expect(body.token_endpoint_auth_methods_supported).toEqual(
        expect.arrayContaining(['client_secret_basic', 'client_secret_post', 'none']),
      );
    });

    it('publishes an RS256 public key (no private part) that the ID-token key is, the same on every call', async () => {
      const first = (await request(server()).get('/.well-known/jwks.json')).body as JSONWebKeySet;
      const rsa = first.keys.filter((key) => key.kty === 'RSA');
      expect(rsa).toHaveLength(1);
      expect(rsa[0]).toMatchObject({ alg: 'RS256', use: 'sig' });
      expect(rsa[0]).not.toHaveProperty('d');
      const again = (await request(server()).get('/.well-known/jwks.json')).body as JSONWebKeySet;
      expect(again.keys).toEqual(first.keys);
      const [row] = await db.query(`SELECT private_key_sealed FROM provider_signing_keys WHERE retired_at IS NULL`);
      expect(row.private_key_sealed).toMatch(/^v1\./);
      expect(row.private_key_sealed).not.toContain('PRIVATE KEY');
    });
  });

  describe('sign-in and code', () => {
    it('shows a sign-in page with Email, Password and Sign in, under a strict policy, and sets the provider cookies', async () => {
      const browser = new ProviderBrowser(app);
      const page = await browser.authorize(authorizationQuery(web.id, WEB).query);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toMatch(/<label for="email">Email<\/label>/);
      expect(page.text).toMatch(/<label for="password">Password<\/label>/);
      expect(page.text).toMatch(/<button type="submit">Sign in<\/button>/);
      const csp = page.headers['content-security-policy'] as string;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(page.text).not.toMatch(/https?:\/\/(?!web\.example\.test)/);
      const csrf = setCookies(page).auth_sso_csrf;
      expect(csrf.attributes).toMatchObject({
        httponly: true,
        secure: true,
        samesite: 'Lax',
        path: '/api/auth/authorize',
      });
    });

    it('answers a code with state and iss, whose exchange gives tokens of a session listed with the client', async () => {
      const user = await registerUser(app);
      const { browser, code, verifier, query, params } = await signedInCode(user);
      expect(params.get('state')).toBe(query.state);
      expect(params.get('iss')).toBe(ISSUER);
      const sso = browser.cookies.get('auth_sso');
      expect(sso).toBeDefined();

      const res = await exchangeWeb(code, verifier);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatchObject({
        token_type: 'Bearer',
        expires_in: 900,
        scope: 'openid profile email offline_access',
      });
      expect(typeof res.body.refresh_token).toBe('string');

      const jwks = createLocalJWKSet((await request(server()).get('/.well-known/jwks.json')).body);
      const { payload, protectedHeader } = await jwtVerify(res.body.id_token, jwks, {
        issuer: ISSUER,
        audience: web.id,
      });
      expect(protectedHeader.alg).toBe('RS256');
      expect(payload).toMatchObject({
        sub: user.id,
        nonce: query.nonce,
        email: user.email,
        email_verified: false,
        name: user.name,
        amr: ['pwd'],
      });
      expect(typeof payload.auth_time).toBe('number');
      expect(typeof payload.sid).toBe('string');

      const access = decodeJwt(res.body.access_token);
      expect(access.header.typ).toBe('at+jwt');
      expect(access.payload).toMatchObject({
        iss: ISSUER,
        aud: ISSUER,
        sub: user.id,
        client_id: web.id,
        scope: 'openid profile email offline_access',
      });
      expect((await me(app, res.body.access_token)).status).toBe(200);
      const info = await request(server())
        .get('/api/auth/userinfo')
        .set('authorization', `Bearer ${res.body.access_token}`);
      expect(info.status).toBe(200);
      expect(info.body.sub).toBe(user.id);

      const sessions = await request(server())
        .get('/api/account/sessions')
        .set('authorization', `Bearer ${res.body.access_token}`);
      expect(sessions.status).toBe(200);
      const mine = sessions.body.data.items.find((item: { id: string }) => item.id === access.payload.sid);
      expect(mine).toMatchObject({ client_name: 'Web <App>' });
    });

    it.each([
      ['openid', {}],
      ['openid email', { email: true, email_verified: true }],
      ['openid profile', { name: true }],
    ])('answers userinfo with only what the scope %s allows, sub always', async (scope, expected) => {
      const user = await registerUser(app);
      const browser = new ProviderBrowser(app);
      const { pair, query } = authorizationQuery(web.id, WEB, { scope });
      const done = await browser.signIn(await browser.authorize(query), user.email, user.password);
      expect(done.status).toBe(302);
      const res = await exchangeWeb(redirectParameters(done).get('code')!, pair.verifier);
      expect(res.status).toBe(200);
      const info = await request(server())
        .get('/api/auth/userinfo')
        .set('authorization', `Bearer ${res.body.access_token}`);
      expect(info.status).toBe(200);
      expect(info.body.sub).toBe(user.id);
      expect(Object.keys(info.body).sort()).toEqual(['sub', ...Object.keys(expected)].sort());
    });

    it('shows the API message for a wrong password on the page, escaped', async () => {
      const user = await registerUser(app);
      const browser = new ProviderBrowser(app);
      const page = await browser.authorize(authorizationQuery(web.id, WEB).query);
      const res = await browser.signIn(page, user.email, 'Wrong-Password-000');
      expect(res.status).toBe(401);
      expect(res.text).toContain('Invalid credentials.');
      expect(res.headers.location).toBeUndefined();
    });

    it('gives a second client in the same browser its code without a page (single sign-on)', async () => {
      const user = await registerUser(app);
      const { browser } = await signedInCode(user);
      const { pair, query } = authorizationQuery(cli.id, 'http://127.0.0.1:53111/callback');
      const res = await browser.authorize(query);
      expect(res.status).toBe(302);
      const params = redirectParameters(res);
      expect(res.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:53111\/callback\?/);
      const exchanged = await token({
        grant_type: 'authorization_code',
        code: params.get('code')!,
        redirect_uri: 'http://127.0.0.1:53111/callback',
        code_verifier: pair.verifier,
        client_id: cli.id,
      });
      expect(exchanged.status).toBe(200);
      expect(decodeJwt(exchanged.body.access_token).payload).toMatchObject({ sub: user.id, client_id: cli.id });
    });

    it('prompt=none without a session: login_required back at the redirect URI with state and iss', async () => {
      const { query } = authorizationQuery(web.id, WEB, { prompt: 'none' });
      const res = await new ProviderBrowser(app).authorize(query);
      expect(res.status).toBe(302);
      const params = redirectParameters(res);
      expect(params.get('error')).toBe('login_required');
      expect(params.get('state')).toBe(query.state);
      expect(params.get('iss')).toBe(ISSUER);
    });
  });

  describe('every rule of the API holds on the pages', () => {
    async function enrolApp(user: RegisteredUser): Promise<TOTP> {
      await awayFromStepEdge();
      const auth = `Bearer ${user.tokens.access_token}`;
      const started = await request(server()).post('/api/account/totp').set('authorization', auth).send({});
      expect(started.status).toBe(200);
      const device = URI.parse(started.body.data.otpauth_uri) as TOTP;
      const confirmed = await request(server())
        .post('/api/account/totp/confirm')
        .set('authorization', auth)
        .send({ code: device.generate({ timestamp: Date.now() - STEP_MS }) });
      expect(confirmed.status).toBe(200);
      return device;
    }

    it('an account with an authenticator app gets the Code page after its password, and the code completes it', async () => {
      const user = await registerUser(app);
      const device = await enrolApp(user);
      const browser = new ProviderBrowser(app);
      const { query, pair } = authorizationQuery(web.id, WEB);
      const challenge = await browser.signIn(await browser.authorize(query), user.email, user.password);
      expect(challenge.status).toBe(200);
      expect(challenge.headers.location).toBeUndefined();
      expect(challenge.text).toMatch(/<label for="code">Code<\/label>/);
      expect(challenge.text).toMatch(/<button type="submit">Verify<\/button>/);
      expect(browser.cookies.has('auth_sso')).toBe(false);

      const { action, fields } = formFields(challenge.text, '/verify');
      const wrong = await browser.post(action, {
        ...fields,
        code: device.generate({ timestamp: Date.now() - 10 * STEP_MS }),
      });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.location).toBeUndefined();

      const verified = await browser.post(action, { ...fields, code: device.generate() });
      expect(verified.status).toBe(302);
      const code = redirectParameters(verified).get('code')!;
      const issued = await exchangeWeb(code, pair.verifier);
      expect(issued.status).toBe(200);
      const idToken = decodeJwt(issued.body.id_token).payload;
      expect(idToken.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    });

    it('a disabled account is told so only after the right password', async () => {
      const user = await registerUser(app);
      await db.query(`UPDATE users SET disabled_at = now() WHERE id = $1`, [user.id]);
      const browser = new ProviderBrowser(app);
      const { query } = authorizationQuery(web.id, WEB);
      const wrong = await browser.signIn(await browser.authorize(query), user.email, 'Wrong-Password-000');
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain('Invalid credentials.');
      const right = await browser.signIn(await browser.authorize(query), user.email, user.password);
      expect(right.status).toBe(403);
      expect(right.text).toContain('This account is disabled.');
      expect(right.headers.location).toBeUndefined();
    });

    it('disabling the account ends the tokens a client holds', async () => {
      const user = await registerUser(app);
      const { code, verifier } = await signedInCode(user);
      const issued = (await exchangeWeb(code, verifier)).body;
      expect((await me(app, issued.access_token)).status).toBe(200);
      const admin = await registerUser(app);
      await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = 'admin'`, [
        admin.id,
      ]);
      const adminToken = (
        await request(server()).post('/api/auth/login').send({ email: admin.email, password: admin.password })
      ).body.data.access_token as string;
      const disabled = await request(server())
        .post(`/api/admin/users/${user.id}/disable`)
        .set('authorization', `Bearer ${adminToken}`)
        .send({});
      expect(disabled.status).toBe(200);
      expect((await me(app, issued.access_token)).status).toBe(401);
      const refreshed = await token(
        { grant_type: 'refresh_token', refresh_token: issued.refresh_token },
        basic(web.id, web.secret),
      );
      expect(refreshed.body.error).toBe('invalid_grant');
    });
  });

  describe('requests refused on a page, never by a redirect', () => {
    it('an unknown client: 400 page, no Location', async () => {
      const res = await new ProviderBrowser(app).authorize(authorizationQuery('nobody', WEB).query);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    });

    it.each([
      ['another path', 'https://web.example.test/callback/other'],
      ['a trailing slash', 'https://web.example.test/callback/'],
      ['upper case host', 'https://WEB.example.test/callback'],
      ['userinfo', 'https://web.example.test@evil.example/callback'],
      ['userinfo before the host', 'https://evil.example@web.example.test/callback'],
      ['a dot segment', 'https://web.example.test/callback/..;/evil'],
      ['a backslash', 'https://web.example.test\\@evil.example/callback'],
      ['a query added', 'https://web.example.test/callback?next=https://evil.example'],
      ['a fragment', 'https://web.example.test/callback#x'],
      ['http instead of https', 'http://web.example.test/callback'],
      ['a port on a web host', 'https://web.example.test:8443/callback'],
      ['javascript:', 'javascript:alert(1)//https://web.example.test/callback'],
      ['data:', 'data:text/html,<script>alert(1)</script>'],
      ['a Unicode look-alike', 'https://wеb.example.test/callback'],
      ['a parameter dot segment', 'https://web.example.test/callback/..;/'],
      ['a double slash in the path', 'https://web.example.test//callback'],
      ['a scheme-relative URI', '//web.example.test/callback'],
      ['four slashes', 'https:////web.example.test/callback'],
      ['an upper case scheme', 'HTTPS://web.example.test/callback'],
      ['backslashes for slashes', 'https:\\\\web.example.test\\callback'],
      ['a percent-encoded path', 'https://web.example.test/%63allback'],
      ['an encoded dot segment', 'https://web.example.test/callback/%2e%2e/callback'],
      ['a full-width dot in the host', 'https://web.example\u3002test/callback'],
      ['JavaScript: in mixed case', 'JavaScript:alert(1)'],
      ['a loopback host for a web client', 'http://127.0.0.1/callback'],
    ])('an unregistered redirect URI (%s): 400 page, no Location', async (_name, redirectUri) => {
      const res = await new ProviderBrowser(app).authorize(authorizationQuery(web.id, redirectUri).query);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
    });

    it('an error of a known client with a registered URI never redirects elsewhere', async () => {
      const res = await new ProviderBrowser(app).authorize(
        authorizationQuery(web.id, WEB, { response_type: 'token', state: 'https://evil.example' }).query,
      );
      expect(res.status).toBe(302);
      expect(res.headers.location).toMatch(/^https:\/\/web\.example\.test\/callback\?/);
      expect(redirectParameters(res).get('error')).toBe('unsupported_response_type');
    });
  });

  describe("the conformance suite's basic-plan checks", () => {
    it.each(['token', 'id_token', 'code id_token', 'code token'])(
      'response_type=%s: unsupported_response_type at the redirect URI with state and iss, no token in it',
      async (responseType) => {
        const { query } = authorizationQuery(web.id, WEB, { response_type: responseType });
        const res = await new ProviderBrowser(app).authorize(query);
        expect(res.status).toBe(302);
        const location = new URL(res.headers.location as string);
        expect(`${location.origin}${location.pathname}`).toBe(WEB);
        expect(location.hash).toBe('');
        expect(Object.fromEntries(location.searchParams)).toEqual({
          error: 'unsupported_response_type',
          error_description: expect.any(String),
          state: query.state,
          iss: ISSUER,
        });
      },
    );

    it('a request without a redirect_uri: 400 page, no Location', async () => {
      const res = await new ProviderBrowser(app).authorize(
        authorizationQuery(web.id, WEB, { redirect_uri: undefined }).query,
      );
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
    });

    it('prompt=none with a session but consent not yet given: consent_required, with state and iss', async () => {
      const user = await registerUser(app);
      const { browser } = await signedInCode(user);
      const { query } = authorizationQuery(third.id, THIRD, { prompt: 'none' });
      const res = await browser.authorize(query);
      expect(res.status).toBe(302);
      expect(Object.fromEntries(redirectParameters(res))).toMatchObject({
        error: 'consent_required',
        state: query.state,
        iss: ISSUER,
      });
    });

    it('the nonce is echoed in the ID token exactly, and absent when none was sent', async () => {
      const user = await registerUser(app);
      const nonce = 'n-0S6_WzA2Mj ~!*()';
      const browser = new ProviderBrowser(app);
      const withNonce = authorizationQuery(web.id, WEB, { nonce });
      const done = await browser.signIn(await browser.authorize(withNonce.query), user.email, user.password);
      const issued = await exchangeWeb(redirectParameters(done).get('code')!, withNonce.pair.verifier);
      expect(decodeJwt(issued.body.id_token).payload.nonce).toBe(nonce);

      const without = authorizationQuery(web.id, WEB, { nonce: undefined });
      const silent = await browser.authorize(without.query);
      expect(silent.status).toBe(302);
      const second = await exchangeWeb(redirectParameters(silent).get('code')!, without.pair.verifier);
      expect(second.status).toBe(200);
      expect(decodeJwt(second.body.id_token).payload).not.toHaveProperty('nonce');
    });

    it('max_age within the sign-in: a code without a page, and the ID token keeps the first auth_time', async () => {
      const user = await registerUser(app);
      const { browser, code, verifier } = await signedInCode(user);
      const first = decodeJwt((await exchangeWeb(code, verifier)).body.id_token).payload;
      const { query, pair } = authorizationQuery(web.id, WEB, { max_age: '3600' });
      const res = await browser.authorize(query);
      expect(res.status).toBe(302);
      const again = await exchangeWeb(redirectParameters(res).get('code')!, pair.verifier);
      expect(decodeJwt(again.body.id_token).payload.auth_time).toBe(first.auth_time);
    });

    it.each([
      ['max_age=0', { max_age: '0' }],
      ['prompt=login', { prompt: 'login' }],
    ])('%s: the sign-in page again, and the ID token carries the new auth_time', async (_name, extra) => {
      const user = await registerUser(app);
      const { browser, code, verifier } = await signedInCode(user);
      const first = decodeJwt((await exchangeWeb(code, verifier)).body.id_token).payload;
      await sleep(1100);
      const { query, pair } = authorizationQuery(web.id, WEB, extra);
      const page = await browser.authorize(query);
      expect(page.status).toBe(200);
      expect(page.text).toMatch(/<button type="submit">Sign in<\/button>/);
      const done = await browser.signIn(page, user.email, user.password);
      expect(done.status).toBe(302);
      const params = redirectParameters(done);
      expect(params.get('iss')).toBe(ISSUER);
      expect(params.get('state')).toBe(query.state);
      const again = await exchangeWeb(params.get('code')!, pair.verifier);
      expect(again.status).toBe(200);
      const payload = decodeJwt(again.body.id_token).payload;
      expect(typeof payload.auth_time).toBe('number');
      expect(payload.auth_time as number).toBeGreaterThan(first.auth_time as number);
      expect(payload.auth_time as number).toBeLessThanOrEqual(payload.iat as number);
    });

    it('every answer of the token endpoint, error or not, is Cache-Control: no-store', async () => {
      const { code, verifier } = await signedInCode(await registerUser(app));
      const issued = await exchangeWeb(code, verifier);
      expect(issued.headers['cache-control']).toBe('no-store');
      const refreshed = await token(
        { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token },
        basic(web.id, web.secret),
      );
      expect(refreshed.status).toBe(200);
      expect(refreshed.headers['cache-control']).toBe('no-store');
      const replayed = await exchangeWeb(code, verifier);
      expect(replayed.status).toBe(400);
      expect(replayed.headers['cache-control']).toBe('no-store');
    });

    it('a code past its 60 seconds: invalid_grant', async () => {
      const { code, verifier } = await signedInCode(await registerUser(app));
      await db.query(
        `UPDATE provider_authorization_codes SET expires_at = now() - interval '1 second'
          WHERE code_hash = encode(sha256($1::bytea), 'hex')`,
        [code],
      );
      const res = await exchangeWeb(code, verifier);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    });

    it('a code is valid for at most 60 seconds', async () => {
      const { code } = await signedInCode(await registerUser(app));
      const [row] = await db.query(
        `SELECT extract(epoch FROM expires_at - created_at)::int AS lifetime FROM provider_authorization_codes
          WHERE code_hash = encode(sha256($1::bytea), 'hex')`,
        [code],
      );
      expect(row.lifetime).toBeLessThanOrEqual(60);
    });

    it("a public client's code exchanged with the verifier of another request: invalid_grant", async () => {
      const user = await registerUser(app);
      const { browser } = await signedInCode(user);
      const redirect = 'http://127.0.0.1:53112/callback';
      const one = authorizationQuery(cli.id, redirect);
      const other = authorizationQuery(cli.id, redirect);
      const res = await browser.authorize(one.query);
      const exchanged = await token({
        grant_type: 'authorization_code',
        code: redirectParameters(res).get('code')!,
        redirect_uri: redirect,
        code_verifier: other.pair.verifier,
        client_id: cli.id,
      });
      expect(exchanged.status).toBe(400);
      expect(exchanged.body.error).toBe('invalid_grant');
    });

    it("a public client's code with its loopback URI on another port than asked: invalid_grant", async () => {
      const user = await registerUser(app);
      const { browser } = await signedInCode(user);
      const { query, pair } = authorizationQuery(cli.id, 'http://127.0.0.1:53113/callback');
      const res = await browser.authorize(query);
      const exchanged = await token({
        grant_type: 'authorization_code',
        code: redirectParameters(res).get('code')!,
        redirect_uri: 'http://127.0.0.1:53114/callback',
        code_verifier: pair.verifier,
        client_id: cli.id,
      });
      expect(exchanged.status).toBe(400);
      expect(exchanged.body.error).toBe('invalid_grant');
    });
  });

  describe('PKCE is required of every client', () => {
    it.each([
      ['missing', { code_challenge: undefined, code_challenge_method: undefined }],
      ['plain', { code_challenge_method: 'plain' }],
      ['without a method', { code_challenge_method: undefined }],
    ])('%s: invalid_request at the redirect URI', async (_name, extra) => {
      const { query } = authorizationQuery(web.id, WEB, extra as Record<string, string | undefined>);
      const res = await new ProviderBrowser(app).authorize(query);
      expect(res.status).toBe(302);
      const params = redirectParameters(res);
      expect(params.get('error')).toBe('invalid_request');
      expect(params.get('state')).toBe(query.state);
      expect(params.get('iss')).toBe(ISSUER);
    });

    it('a public client is held to it too: plain is invalid_request', async () => {
      const { query } = authorizationQuery(cli.id, LOOPBACK, {
        code_challenge: 'a-plain-challenge-that-is-the-verifier-itself-0123',
        code_challenge_method: 'plain',
      });
      const res = await new ProviderBrowser(app).authorize(query);
      expect(res.status).toBe(302);
      expect(redirectParameters(res).get('error')).toBe('invalid_request');
    });

    it('the challenge itself sent as the verifier (a plain downgrade at the token endpoint): invalid_grant', async () => {
      const user = await registerUser(app);
      const browser = new ProviderBrowser(app);
      const { query } = authorizationQuery(web.id, WEB);
      const done = await browser.signIn(await browser.authorize(query), user.email, user.password);
      const res = await exchangeWeb(redirectParameters(done).get('code')!, query.code_challenge!);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    });

    it('a wrong code_verifier: invalid_grant', async () => {
      const { code } = await signedInCode(await registerUser(app));
      const res = await exchangeWeb(code, pkce().verifier);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    });

    it('no code_verifier: invalid_grant', async () => {
      const { code } = await signedInCode(await registerUser(app));
      const res = await token({ grant_type: 'authorization_code', code, redirect_uri: WEB }, basic(web.id, web.secret));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    });
  });

  describe('the code', () => {
    it('used twice: invalid_grant, and the tokens of the first exchange are revoked', async () => {
      const { code, verifier } = await signedInCode(await registerUser(app));
      const first = await exchangeWeb(code, verifier);
      expect(first.status).toBe(200);
      expect((await me(app, first.body.access_token)).status).toBe(200);
      const second = await exchangeWeb(code, verifier);
      expect(second.status).toBe(400);
      expect(second.body.error).toBe('invalid_grant');
      expect((await me(app, first.body.access_token)).status).toBe(401);
      const refreshed = await token(
        { grant_type: 'refresh_token', refresh_token: first.body.refresh_token },
        basic(web.id, web.secret),
      );
      expect(refreshed.status).toBe(400);
      expect(refreshed.body.error).toBe('invalid_grant');
    });

    it('two exchanges at once: never both succeed, and no token of either outlives the replay', async () => {
      const { code, verifier } = await signedInCode(await registerUser(app));
      const answers = await Promise.all([exchangeWeb(code, verifier), exchangeWeb(code, verifier)]);
      const refused = answers.filter((res) => res.status === 400);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      for (const res of refused) expect(res.body.error).toBe('invalid_grant');
      for (const res of answers.filter((answer) => answer.status === 200)) {
        expect((await me(app, res.body.access_token)).status).toBe(401);
      }
      const [row] = await db.query(
        `SELECT count(*)::int AS live FROM sessions WHERE client_id = $1 AND revoked_at IS NULL AND parent_session_id IN
           (SELECT session_id FROM provider_authorization_codes WHERE code_hash = encode(sha256($2::bytea), 'hex'))`,
        [web.id, code],
      );
      expect(row.live).toBe(0);
    });

    it('exchanged by another client: invalid_grant', async () => {
      const { code, verifier } = await signedInCode(await registerUser(app));
      const res = await token(
        { grant_type: 'authorization_code', code, redirect_uri: WEB, code_verifier: verifier },
        basic(third.id, third.secret),
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    });

    it('exchanged with another redirect_uri: invalid_grant', async () => {
      const { code, verifier } = await signedInCode(await registerUser(app));
      const res = await token(
        { grant_type: 'authorization_code', code, redirect_uri: `${WEB}/other`, code_verifier: verifier },
        basic(web.id, web.secret),
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    });

    it('is stored as a digest only', async () => {
      const { code } = await signedInCode(await registerUser(app));
      const rows = await db.query(`SELECT code_hash FROM provider_authorization_codes WHERE code_hash = $1`, [code]);
      expect(rows).toHaveLength(0);
    });

    it('a confidential client without its secret cannot exchange', async () => {
      const { code, verifier } = await signedInCode(await registerUser(app));
      const res = await token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: WEB,
        code_verifier: verifier,
        client_id: web.id,
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    });
  });

  describe('refresh tokens are bound to their client', () => {
    it('rotates for its client, refuses another client, and a reuse ends the session', async () => {
      const { code, verifier } = await signedInCode(await registerUser(app));
      const issued = (await exchangeWeb(code, verifier)).body;
      const stolen = await token(
        { grant_type: 'refresh_token', refresh_token: issued.refresh_token },
        basic(third.id, third.secret),
      );
      expect(stolen.status).toBe(400);
      expect(stolen.body.error).toBe('invalid_grant');
      const rotated = await token(
        { grant_type: 'refresh_token', refresh_token: issued.refresh_token },
        basic(web.id, web.secret),
      );
      expect(rotated.status).toBe(200);
      expect(decodeJwt(rotated.body.access_token).payload).toMatchObject({ client_id: web.id });
      const reused = await token(
        { grant_type: 'refresh_token', refresh_token: issued.refresh_token },
        basic(web.id, web.secret),
      );
      expect(reused.body.error).toBe('invalid_grant');
      expect((await me(app, rotated.body.access_token)).status).toBe(401);
    });
  });

  describe('one session model', () => {
    it('ending the browser sign-in from the sessions list ends every client token issued under it', async () => {
      const user = await registerUser(app);
      const { browser, code, verifier } = await signedInCode(user);
      const issued = (await exchangeWeb(code, verifier)).body;
      const parentId = decodeJwt(issued.id_token).payload.sid as string;
      const res = await request(server())
        .delete(`/api/account/sessions/${parentId}`)
        .set('authorization', `Bearer ${user.tokens.access_token}`);
      expect(res.status).toBe(200);
      expect((await me(app, issued.access_token)).status).toBe(401);
      // The browser's single sign-on ended with it: the next request asks for a sign-in.
      const again = await browser.authorize(authorizationQuery(web.id, WEB, { prompt: 'none' }).query);
      expect(redirectParameters(again).get('error')).toBe('login_required');
    });
  });

  describe('RP-initiated logout', () => {
    async function signedInWithTokens() {
      const user = await registerUser(app);
      const { browser, code, verifier } = await signedInCode(user);
      const issued = (await exchangeWeb(code, verifier)).body;
      return { user, browser, issued };
    }

    it('with an id_token_hint and a registered URI: the sign-in and its client tokens end, back with state', async () => {
      const { browser, issued } = await signedInWithTokens();
      const res = await browser.get('/api/auth/authorize/end-session', {
        id_token_hint: issued.id_token,
        post_logout_redirect_uri: BYE,
        state: 'after-logout',
      });
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`${BYE}?state=after-logout`);
      expect((await me(app, issued.access_token)).status).toBe(401);
      const refreshed = await token(
        { grant_type: 'refresh_token', refresh_token: issued.refresh_token },
        basic(web.id, web.secret),
      );
      expect(refreshed.body.error).toBe('invalid_grant');
      const again = await browser.authorize(authorizationQuery(web.id, WEB, { prompt: 'none' }).query);
      expect(redirectParameters(again).get('error')).toBe('login_required');
    });

    it('an unregistered post_logout_redirect_uri: a page, no redirect, nothing ended', async () => {
      const { browser, issued } = await signedInWithTokens();
      const res = await browser.get('/api/auth/authorize/end-session', {
        id_token_hint: issued.id_token,
        post_logout_redirect_uri: 'https://evil.example/bye',
      });
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect((await me(app, issued.access_token)).status).toBe(200);
    });

    it('an id_token_hint not issued here: a page, nothing ended', async () => {
      const { browser, issued } = await signedInWithTokens();
      const [header, payload] = issued.id_token.split('.');
      const res = await browser.get('/api/auth/authorize/end-session', {
        id_token_hint: `${header}.${payload}.${Buffer.from('forged').toString('base64url')}`,
        post_logout_redirect_uri: BYE,
      });
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect((await me(app, issued.access_token)).status).toBe(200);
    });

    it('without an id_token_hint: a page with Sign out, which ends the browser sign-in', async () => {
      const { browser, issued } = await signedInWithTokens();
      const page = await browser.get('/api/auth/authorize/end-session', {});
      expect(page.status).toBe(200);
      expect(page.text).toMatch(/<button type="submit">Sign out<\/button>/);
      expect((await me(app, issued.access_token)).status).toBe(200);
      const { action, fields } = formFields(page.text, '/end-session');
      const done = await browser.post(action, fields);
      expect(done.status).toBe(200);
      expect((await me(app, issued.access_token)).status).toBe(401);
    });
  });

  describe('consent', () => {
    it('a third-party client asks with Allow and Deny; Deny is access_denied', async () => {
      const user = await registerUser(app);
      const browser = new ProviderBrowser(app);
      const { query } = authorizationQuery(third.id, THIRD);
      const consent = await browser.signIn(await browser.authorize(query), user.email, TEST_PASSWORD);
      expect(consent.status).toBe(200);
      expect(consent.text).toContain('Third Party');
      expect(consent.text).toMatch(/<button type="submit" name="decision" value="allow">Allow<\/button>/);
      expect(consent.text).toMatch(/<button type="submit" name="decision" value="deny">Deny<\/button>/);
      const denied = await browser.decide(consent, 'deny');
      expect(redirectParameters(denied).get('error')).toBe('access_denied');
      expect(redirectParameters(denied).get('state')).toBe(query.state);
    });

    it('Allow is remembered for the person and client, listed, and withdrawing it ends the tokens', async () => {
      const user = await registerUser(app);
      const browser = new ProviderBrowser(app);
      const { query, pair } = authorizationQuery(third.id, THIRD);
      const consent = await browser.signIn(await browser.authorize(query), user.email, TEST_PASSWORD);
      const allowed = await browser.decide(consent, 'allow');
      const code = redirectParameters(allowed).get('code')!;
      const issued = await token(
        { grant_type: 'authorization_code', code, redirect_uri: THIRD, code_verifier: pair.verifier },
        basic(third.id, third.secret),
      );
      expect(issued.status).toBe(200);
      // Asked no more for the same scopes; prompt=none works now.
      const silent = await browser.authorize(authorizationQuery(third.id, THIRD, { prompt: 'none' }).query);
      expect(redirectParameters(silent).get('code')).toBeTruthy();
      // prompt=consent asks again.
      expect((await browser.authorize(authorizationQuery(third.id, THIRD, { prompt: 'consent' }).query)).status).toBe(
        200,
      );

      const listed = await request(server())
        .get('/api/account/applications')
        .set('authorization', `Bearer ${user.tokens.access_token}`);
      expect(listed.status).toBe(200);
      expect(listed.body.data.items).toEqual([
        expect.objectContaining({ client_id: third.id, client_name: 'Third Party' }),
      ]);
      const withdrawn = await request(server())
        .delete(`/api/account/applications/${third.id}`)
        .set('authorization', `Bearer ${user.tokens.access_token}`);
      expect(withdrawn.status).toBe(200);
      expect((await me(app, issued.body.access_token)).status).toBe(401);
      const after = await browser.authorize(authorizationQuery(third.id, THIRD, { prompt: 'none' }).query);
      expect(redirectParameters(after).get('error')).toBe('consent_required');
    });
  });

  describe('nothing echoed unescaped', () => {
    it('login_hint and the parameters carried in the form are escaped', async () => {
      const hostile = '"><script>alert(1)</script>';
      const page = await new ProviderBrowser(app).authorize(
        authorizationQuery(web.id, WEB, { login_hint: hostile, state: hostile, nonce: hostile }).query,
      );
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('<script>');
      expect(page.text).not.toContain('"><script');
      expect(formFields(page.text, '/login').fields.state).toBe(hostile);
    });

    it('a form posted without the CSRF cookie is refused', async () => {
      const user = await registerUser(app);
      const page = await new ProviderBrowser(app).authorize(authorizationQuery(web.id, WEB).query);
      const { action, fields } = formFields(page.text, '/login');
      const res = await new ProviderBrowser(app).post(action, {
        ...fields,
        email: user.email,
        password: user.password,
      });
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
    });
  });
});
