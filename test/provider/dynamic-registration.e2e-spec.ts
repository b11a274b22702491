import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { pkce, ProviderBrowser } from './provider-browser.js';

const ISSUER = 'https://auth.example.test';
const REGISTRATION_TOKEN = 'initial-access-token-0123456789';

describe('dynamic client registration (RFC 7591), off by default', () => {
  const fixture = useTestApp({ env: { ISSUER } });

  it('is absent from discovery and answers 404', async () => {
    const server = fixture.app.getHttpServer();
    const { body } = await request(server).get('/.well-known/openid-configuration');
    expect(body).not.toHaveProperty('registration_endpoint');
    const res = await request(server)
      .post('/api/auth/register-client')
      .send({ redirect_uris: ['https://app.example.test/cb'] });
    expect(res.status).toBe(404);
    const [{ count }] = await fixture.db.query(`SELECT count(*)::int AS count FROM service_clients`);
    expect(count).toBe(0);
  });
});

describe('dynamic client registration (RFC 7591) with an initial access token', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  const fixture = useTestApp({
    env: { ISSUER, OIDC_DYNAMIC_REGISTRATION: 'true', OIDC_REGISTRATION_TOKEN: REGISTRATION_TOKEN },
  });
  const server = () => app.getHttpServer();
  beforeAll(() => ({ app, db } = fixture));

  const register = (body: unknown, authorization: string | null = `Bearer ${REGISTRATION_TOKEN}`) => {
    const req = request(server()).post('/api/auth/register-client');
    if (authorization !== null) req.set('authorization', authorization);
    return req.send(body as object);
  };
  const clientCount = async () =>
    ((await db.query(`SELECT count(*)::int AS count FROM service_clients`)) as { count: number }[])[0].count;

  it('discovery names the registration endpoint', async () => {
    const { body } = await request(server()).get('/.well-known/openid-configuration');
    expect(body.registration_endpoint).toBe(`${ISSUER}/api/auth/register-client`);
  });

  it.each([
    ['no token', null],
    ['a wrong token', 'Bearer initial-access-token-0123456780'],
    ['the token under another scheme', `Basic ${REGISTRATION_TOKEN}`],
    ['the token with a suffix', `Bearer ${REGISTRATION_TOKEN}x`],
  ])('%s: 401 invalid_token, nothing registered', async (_name, authorization) => {
    const before = await clientCount();
    const res = await register({ redirect_uris: ['https://app.example.test/cb'] }, authorization);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_token');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.text).not.toContain(REGISTRATION_TOKEN);
    expect(await clientCount()).toBe(before);
  });

  it('a public client (token_endpoint_auth_method none): 201 with its metadata, no secret, audited', async () => {
    const res = await register({
      client_name: 'Agent <Smith>',
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'openid email',
      software_id: 'mcp-inspector',
      contacts: ['ops@example.test'],
    });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      client_name: 'Agent <Smith>',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(typeof res.body.client_id).toBe('string');
    expect(typeof res.body.client_id_issued_at).toBe('number');
    expect(res.body).not.toHaveProperty('client_secret');
    const [row] = await db.query(
      `SELECT type, first_party, dynamically_registered FROM service_clients WHERE client_id = $1`,
      [res.body.client_id],
    );
    expect(row).toEqual({ type: 'public', first_party: false, dynamically_registered: true });
    const [audit] = await db.query(
      `SELECT type, target_type, details FROM audit_events WHERE target_id = $1 AND type = 'client.create'`,
      [res.body.client_id],
    );
    expect(audit).toMatchObject({ type: 'client.create', target_type: 'client' });
    expect(audit.details).toMatchObject({ client_id: res.body.client_id, via: 'dynamic_registration' });
  });

  it('a confidential client gets its secret once, which authenticates it; it is third-party: consent is asked', async () => {
    const res = await register({ client_name: 'Third', redirect_uris: ['https://third.example.test/cb'] });
    expect(res.status).toBe(201);
    expect(res.body.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(typeof res.body.client_secret).toBe('string');
    expect(res.body.client_secret_expires_at).toBe(0);
    // The secret authenticates the client (client_credentials is not its grant: unauthorized_client, not invalid_client).
    const grant = await request(server())
      .post('/api/auth/token')
      .type('form')
      .auth(res.body.client_id, res.body.client_secret)
      .send('grant_type=client_credentials');
    expect(grant.status).toBe(400);
    expect(grant.body.error).toBe('unauthorized_client');

    const user = await registerUser(app);
    const browser = new ProviderBrowser(app);
    const pair = pkce();
    const page = await browser.authorize({
      response_type: 'code',
      client_id: res.body.client_id,
      redirect_uri: 'https://third.example.test/cb',
      scope: 'openid',
      state: 's',
      code_challenge: pair.challenge,
      code_challenge_method: 'S256',
    });
    const consent = await browser.signIn(page, user.email, user.password);
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('Third');
    expect(consent.text).toMatch(/<button type="submit" name="decision" value="allow">Allow<\/button>/);
  });

  it.each([
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['a wildcard', 'https://*.example.test/cb'],
    ['http on a public host', 'http://app.example.test/cb'],
    ['userinfo', 'https://app.example.test@evil.example/cb'],
    ['a fragment', 'https://app.example.test/cb#x'],
    ['file:', 'file:///etc/passwd'],
    ['a relative URI', '/cb'],
  ])('a redirect URI with %s: 400 invalid_redirect_uri, nothing registered', async (_name, uri) => {
    const before = await clientCount();
    const res = await register({ redirect_uris: [uri] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_redirect_uri');
    expect(typeof res.body.error_description).toBe('string');
    expect(await clientCount()).toBe(before);
  });

  it('no redirect URI at all: 400 invalid_redirect_uri', async () => {
    const res = await register({ client_name: 'Nothing' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_redirect_uri');
  });

  it.each([
    ['an unknown field', { redirect_uris: ['https://app.example.test/cb'], roles: ['admin'] }],
    ['first_party asked for', { redirect_uris: ['https://app.example.test/cb'], first_party: true }],
    ['client_credentials', { redirect_uris: ['https://app.example.test/cb'], grant_types: ['client_credentials'] }],
    ['an implicit response type', { redirect_uris: ['https://app.example.test/cb'], response_types: ['token'] }],
    [
      'an unknown auth method',
      { redirect_uris: ['https://app.example.test/cb'], token_endpoint_auth_method: 'private_key_jwt' },
    ],
    ['HS256 ID tokens', { redirect_uris: ['https://app.example.test/cb'], id_token_signed_response_alg: 'HS256' }],
    [
      'a javascript: back-channel URI',
      { redirect_uris: ['https://app.example.test/cb'], backchannel_logout_uri: 'javascript:x' },
    ],
    [
      'a javascript: post-logout URI',
      { redirect_uris: ['https://app.example.test/cb'], post_logout_redirect_uris: ['javascript:x'] },
    ],
    ['a name that is not a string', { redirect_uris: ['https://app.example.test/cb'], client_name: 42 }],
    ['an array body', [{ redirect_uris: ['https://app.example.test/cb'] }]],
  ])('%s: 400 invalid_client_metadata, nothing registered', async (_name, body) => {
    const before = await clientCount();
    const res = await register(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
    expect(await clientCount()).toBe(before);
  });
});

describe('dynamic client registration without an initial access token', () => {
  const fixture = useTestApp({ env: { ISSUER, OIDC_DYNAMIC_REGISTRATION: 'true', RATE_LIMIT_PER_MINUTE: '3' } });

  it('anyone may register, limited per client address', async () => {
    const server = fixture.app.getHttpServer();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await request(server)
        .post('/api/auth/register-client')
        .send({ redirect_uris: [`https://app${i}.example.test/cb`] });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([201, 201, 201, 429]);
  });
});
