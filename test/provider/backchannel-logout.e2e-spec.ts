import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { decodeJwt, registerUser, type RegisteredUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { callerWithRoles, type Caller } from '../support/rbac-factory.js';
import { formFields, pkce, ProviderBrowser, redirectParameters } from './provider-browser.js';
import { LogoutReceiver } from './logout-receiver.js';

const ISSUER = 'https://auth.example.test';
const WEB = 'https://web.example.test/callback';
const BYE = 'https://web.example.test/signed-out';
const OTHER = 'https://other.example.test/callback';
const AUDITOR = { id: 'auditor', secret: 'auditor-secret-0123456789-abcdefghij' };
const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

describe('one session model: every end of a session ends the relying party tokens and sends a back-channel logout token', () => {
  const receiver = new LogoutReceiver();
  let app: NestFastifyApplication;
  let db: DataSource;
  let admin: Caller;
  const web = { id: 'web-bc', secret: '' };
  const other = { id: 'other-no-bc', secret: '' };
  const fixture = useTestApp({
    env: { ISSUER, SERVICE_CLIENTS: `${AUDITOR.id}:${AUDITOR.secret}`, OUTBOX_RETRY_BASE_MS: '200' },
  });
  const server = () => app.getHttpServer();
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

  beforeAll(async () => {
    await receiver.start();
    ({ app, db } = fixture);
    admin = await callerWithRoles(app, db, ['admin']);
    const created = await request(server())
      .post('/api/admin/clients')
      .set('authorization', `Bearer ${admin.token}`)
      .send({
        client_id: web.id,
        name: 'Web with back-channel',
        type: 'confidential',
        redirect_uris: [WEB],
        post_logout_redirect_uris: [BYE],
        first_party: true,
        backchannel_logout_uri: receiver.url,
      });
    expect(created.status).toBe(201);
    expect(created.body.data.backchannel_logout_uri).toBe(receiver.url);
    web.secret = created.body.data.client_secret;
    const plain = await request(server())
      .post('/api/admin/clients')
      .set('authorization', `Bearer ${admin.token}`)
      .send({
        client_id: other.id,
        name: 'No back-channel',
        type: 'confidential',
        redirect_uris: [OTHER],
        first_party: true,
      });
    expect(plain.status).toBe(201);
    other.secret = plain.body.data.client_secret;
  });

  afterAll(() => receiver.stop());

  function token(form: Record<string, string>, authorization: string) {
    return request(server())
      .post('/api/auth/token')
      .type('form')
      .set('authorization', authorization)
      .send(new URLSearchParams(form).toString());
  }

  /** `user` signs in through the pages for `client` and the client exchanges the code. */
  async function signedIn(user: RegisteredUser, client = web, redirectUri = WEB, browser = new ProviderBrowser(app)) {
    const pair = pkce();
    const page = await browser.authorize({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: redirectUri,
      scope: 'openid email offline_access',
      state: 's',
      nonce: `n-${Math.random()}`,
      code_challenge: pair.challenge,
      code_challenge_method: 'S256',
    });
    const done = browser.cookies.has('auth_sso') ? page : await browser.signIn(page, user.email, user.password);
    expect(done.status).toBe(302);
    const code = redirectParameters(done).get('code')!;
    const res = await token(
      { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: pair.verifier },
      basic(client.id, client.secret),
    );
    expect(res.status).toBe(200);
    const issued = res.body as { access_token: string; refresh_token: string; id_token: string };
    return { browser, issued, sid: decodeJwt(issued.id_token).payload.sid as string };
  }

  /** The relying party's tokens are dead everywhere: refresh refused, introspection inactive, userinfo 401. */
  async function expectEnded(issued: { access_token: string; refresh_token: string }) {
    const refreshed = await token(
      { grant_type: 'refresh_token', refresh_token: issued.refresh_token },
      basic(web.id, web.secret),
    );
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    const introspected = await request(server())
      .post('/api/auth/introspect')
      .type('form')
      .set('authorization', basic(AUDITOR.id, AUDITOR.secret))
      .send(new URLSearchParams({ token: issued.access_token }).toString());
    expect(introspected.status).toBe(200);
    expect(introspected.body.active).toBe(false);
    const info = await request(server())
      .get('/api/auth/userinfo')
      .set('authorization', `Bearer ${issued.access_token}`);
    expect(info.status).toBe(401);
  }

  /** The logout token for this sign-in reaches the receiver, signed as ID tokens are, with the claims of §2.4. */
  async function expectLogoutToken(user: { id: string }, sid: string) {
    const logoutToken = await receiver.waitFor((payload) => payload.sid === sid);
    const jwks = createLocalJWKSet((await request(server()).get('/.well-known/jwks.json')).body);
    const { payload, protectedHeader } = await jwtVerify(logoutToken, jwks, {
      issuer: ISSUER,
      audience: web.id,
      typ: 'logout+jwt',
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ iss: ISSUER, aud: web.id, sub: user.id, sid, events: { [BACKCHANNEL_EVENT]: {} } });
    expect(typeof payload.jti).toBe('string');
    expect(typeof payload.iat).toBe('number');
    expect(typeof payload.exp).toBe('number');
    expect(payload).not.toHaveProperty('nonce');
    const delivery = receiver.received.find(({ form }) => form.get('logout_token') === logoutToken)!;
    expect(delivery.contentType).toBe('application/x-www-form-urlencoded');
  }

  it('discovery says back-channel logout, with sid, is supported', async () => {
    const { body } = await request(server()).get('/.well-known/openid-configuration');
    expect(body.backchannel_logout_supported).toBe(true);
    expect(body.backchannel_logout_session_supported).toBe(true);
  });

  it('logout (POST /api/auth/logout with the relying party access token)', async () => {
    const user = await registerUser(app);
    const { issued, sid } = await signedIn(user);
    const res = await request(server()).post('/api/auth/logout').set('authorization', `Bearer ${issued.access_token}`);
    expect(res.status).toBe(200);
    await expectEnded(issued);
    await expectLogoutToken(user, sid);
  });

  it('revoking the sign-in from the sessions list (its holder)', async () => {
    const user = await registerUser(app);
    const { issued, sid } = await signedIn(user);
    const res = await request(server())
      .delete(`/api/account/sessions/${sid}`)
      .set('authorization', `Bearer ${user.tokens.access_token}`);
    expect(res.status).toBe(200);
    await expectEnded(issued);
    await expectLogoutToken(user, sid);
  });

  it('revoking the sign-in from the sessions list (an administrator)', async () => {
    const user = await registerUser(app);
    const { issued, sid } = await signedIn(user);
    const res = await request(server())
      .delete(`/api/admin/users/${user.id}/sessions/${sid}`)
      .set('authorization', `Bearer ${admin.token}`);
    expect(res.status).toBe(200);
    await expectEnded(issued);
    await expectLogoutToken(user, sid);
  });

  it('a password change', async () => {
    const user = await registerUser(app);
    const { issued, sid } = await signedIn(user);
    const password = 'Another-Quiet-Harbour-71';
    const res = await request(server())
      .post('/api/account/password')
      .set('authorization', `Bearer ${user.tokens.access_token}`)
      .send({ current_password: user.password, password, password_confirmation: password });
    expect(res.status).toBe(200);
    await expectEnded(issued);
    await expectLogoutToken(user, sid);
  });

  it('disabling the account', async () => {
    const user = await registerUser(app);
    const { issued, sid } = await signedIn(user);
    const res = await request(server())
      .post(`/api/admin/users/${user.id}/disable`)
      .set('authorization', `Bearer ${admin.token}`)
      .send({});
    expect(res.status).toBe(200);
    await expectEnded(issued);
    await expectLogoutToken(user, sid);
  });

  it('deleting the account', async () => {
    const user = await registerUser(app);
    const { issued, sid } = await signedIn(user);
    const res = await request(server())
      .delete('/api/account')
      .set('authorization', `Bearer ${user.tokens.access_token}`)
      .send({});
    expect(res.status).toBe(200);
    await expectEnded(issued);
    await expectLogoutToken(user, sid);
  });

  it('RP-initiated logout', async () => {
    const user = await registerUser(app);
    const { browser, issued, sid } = await signedIn(user);
    const res = await browser.get('/api/auth/authorize/end-session', {
      id_token_hint: issued.id_token,
      post_logout_redirect_uri: BYE,
      state: 'bye',
    });
    expect(res.status).toBe(302);
    await expectEnded(issued);
    await expectLogoutToken(user, sid);
  });

  it('RP-initiated logout through the Sign out page', async () => {
    const user = await registerUser(app);
    const { browser, issued, sid } = await signedIn(user);
    const page = await browser.get('/api/auth/authorize/end-session', {});
    const { action, fields } = formFields(page.text, '/end-session');
    expect((await browser.post(action, fields)).status).toBe(200);
    await expectEnded(issued);
    await expectLogoutToken(user, sid);
  });

  it('a receiver that fails gets the token again later (the outbox retries)', async () => {
    const user = await registerUser(app);
    const { issued, sid } = await signedIn(user);
    const refusedBefore = receiver.refused;
    receiver.failures = 2;
    const res = await request(server()).post('/api/auth/logout').set('authorization', `Bearer ${issued.access_token}`);
    expect(res.status).toBe(200);
    await expectLogoutToken(user, sid);
    expect(receiver.refused - refusedBefore).toBe(2);
  });

  it('one token per client and sign-in, none for a client that registered no back-channel URI', async () => {
    const user = await registerUser(app);
    const first = await signedIn(user);
    // Single sign-on: two more codes under the same browser sign-in, for this client and another.
    await signedIn(user, web, WEB, first.browser);
    const third = await signedIn(user, other, OTHER, first.browser);
    expect(third.sid).toBe(first.sid);
    const res = await request(server())
      .delete(`/api/account/sessions/${first.sid}`)
      .set('authorization', `Bearer ${user.tokens.access_token}`);
    expect(res.status).toBe(200);
    await expectLogoutToken(user, first.sid);
    const [{ pending }] = await db.query(
      `SELECT count(*)::int AS pending FROM outbox_messages WHERE user_id = $1 AND status = 'pending'`,
      [user.id],
    );
    expect(pending).toBe(0);
    const tokens = receiver.tokensFor((payload) => payload.sid === first.sid);
    expect(tokens).toHaveLength(1);
    expect(decodeProtectedHeader(tokens[0]).typ).toBe('logout+jwt');
    const [{ sent }] = await db.query(
      `SELECT count(*)::int AS sent FROM outbox_messages WHERE user_id = $1 AND kind = 'backchannel_logout'`,
      [user.id],
    );
    expect(sent).toBe(1);
  });

  it('the API own sign-ins send nothing', async () => {
    const user = await registerUser(app);
    const res = await request(server())
      .post('/api/auth/logout')
      .set('authorization', `Bearer ${user.tokens.access_token}`);
    expect(res.status).toBe(200);
    const [{ queued }] = await db.query(
      `SELECT count(*)::int AS queued FROM outbox_messages WHERE user_id = $1 AND kind = 'backchannel_logout'`,
      [user.id],
    );
    expect(queued).toBe(0);
  });
});
