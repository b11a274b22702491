import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { callerWithOnlyPermissions, callerWithRoles, roleWithPermissions } from '../support/rbac-factory.js';
import { decodeJwt, me, refresh, registerUser, uniqueMobile } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';

const ISSUER = 'https://auth.example.test';
const ORDERS = { id: 'orders', secret: 'orders-secret-0123456789-abcdefghijkl' };
const BILLING = { id: 'billing', secret: 'billing-secret-0123456789-abcdefgh' };
/** A client whose id looks like a user id: it may introspect, but never hold service tokens. */
const UUID_CLIENT = { id: '3f1c7f3e-9b7a-4d55-8a56-1c0de0c0ffee', secret: 'uuid-client-secret-0123456789-abcd' };
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('standard endpoints: discovery, token, revocation, userinfo', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  const fixture = useTestApp({
    env: {
      ISSUER,
      SERVICE_CLIENTS: [ORDERS, BILLING, UUID_CLIENT].map((client) => `${client.id}:${client.secret}`).join(','),
    },
  });
  beforeAll(() => void ({ app, db } = fixture));

  const server = () => app.getHttpServer();
  const token = (form: string, authorization: string | null = basic(ORDERS.id, ORDERS.secret)) => {
    const req = request(server()).post('/api/auth/token').type('form');
    if (authorization) req.set('authorization', authorization);
    return req.send(form);
  };
  const revoke = (form: string, authorization = basic(ORDERS.id, ORDERS.secret)) =>
    request(server()).post('/api/auth/revoke').type('form').set('authorization', authorization).send(form);
  const introspect = (value: string) =>
    request(server())
      .post('/api/auth/introspect')
      .set('authorization', basic(BILLING.id, BILLING.secret))
      .send({ token: value });
  const serviceToken = async (client = ORDERS) =>
    (await token('grant_type=client_credentials', basic(client.id, client.secret))).body.access_token as string;

  describe('discovery', () => {
    it.each(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'])(
      '%s: bare JSON built from ISSUER',
      async (path) => {
        const res = await request(server()).get(path);
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toEqual({
          issuer: ISSUER,
          jwks_uri: `${ISSUER}/.well-known/jwks.json`,
          token_endpoint: `${ISSUER}/api/auth/token`,
          introspection_endpoint: `${ISSUER}/api/auth/introspect`,
          revocation_endpoint: `${ISSUER}/api/auth/revoke`,
          userinfo_endpoint: `${ISSUER}/api/auth/userinfo`,
          authorization_endpoint: `${ISSUER}/api/auth/authorize`,
          end_session_endpoint: `${ISSUER}/api/auth/authorize/end-session`,
          grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
          response_types_supported: ['code'],
          response_modes_supported: ['query'],
          code_challenge_methods_supported: ['S256'],
          scopes_supported: ['openid', 'profile', 'email', 'phone', 'offline_access'],
          authorization_response_iss_parameter_supported: true,
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
          introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          backchannel_logout_supported: true,
          backchannel_logout_session_supported: true,
          prompt_values_supported: ['none', 'login', 'consent'],
          claims_supported: [
            'sub',
            'iss',
            'aud',
            'exp',
            'iat',
            'auth_time',
            'nonce',
            'amr',
            'sid',
            'email',
            'email_verified',
            'name',
            'phone_number',
          ],
        });
      },
    );

    it('names endpoints that answer, each as its RFC says', async () => {
      const { body } = await request(server()).get('/.well-known/openid-configuration');
      const local = (url: string) => url.slice(ISSUER.length);
      // Under HS256 the only published key is the OpenID provider's RS256 ID-token key.
      const { keys } = (await request(server()).get(local(body.jwks_uri))).body as { keys: { kty: string }[] };
      expect(keys.map((key) => key.kty)).toEqual(['RSA']);
      expect(
        (await request(server()).post(local(body.token_endpoint)).type('form').send('grant_type=client_credentials'))
          .status,
      ).toBe(401);
      expect((await request(server()).post(local(body.introspection_endpoint)).send({ token: 'x' })).status).toBe(401);
      expect((await request(server()).post(local(body.revocation_endpoint)).type('form').send('token=x')).status).toBe(
        401,
      );
      expect((await request(server()).get(local(body.userinfo_endpoint))).status).toBe(401);
    });
  });

  describe('POST /api/auth/token: client_credentials', () => {
    it('issues a service access token to a client authenticated by HTTP Basic: bare JSON, no-store, no refresh token', async () => {
      const res = await token('grant_type=client_credentials');
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 900 });
      const { header, payload } = decodeJwt(res.body.access_token);
      expect(header).toMatchObject({ alg: 'HS256', typ: 'at+jwt' });
      expect(payload).toMatchObject({
        sub: 'orders',
        client_id: 'orders',
        token_type: 'access',
        iss: ISSUER,
        aud: ISSUER,
      });
      expect((payload.exp as number) - (payload.iat as number)).toBe(900);
    });

    it('makes a token for another audience when the client asks: introspection knows it, this service does not take it', async () => {
      const role = await roleWithPermissions(db, ['users.view']);
      await db.query(`INSERT INTO client_roles (client_id, role_id) VALUES ($1, $2)`, [ORDERS.id, role.id]);
      for (const parameter of ['audience', 'resource']) {
        const res = await token(`grant_type=client_credentials&${parameter}=https://reports.example.test`);
        expect(res.status).toBe(200);
        expect(decodeJwt(res.body.access_token).payload.aud).toBe('https://reports.example.test');
        const own = await request(server())
          .get('/api/admin/users')
          .set('authorization', `Bearer ${res.body.access_token}`);
        expect(own.status).toBe(401);
        expect((await introspect(res.body.access_token)).body).toMatchObject({ active: true, sub: 'orders' });
        expect((await revoke(`token=${res.body.access_token}`)).status).toBe(200);
        expect((await introspect(res.body.access_token)).body).toEqual({ active: false });
      }
      expect((await token('grant_type=client_credentials&audience=has%20space')).body.error).toBe('invalid_request');
      await db.query(`DELETE FROM client_roles WHERE client_id = $1`, [ORDERS.id]);
    });

    it('takes client_secret_post and a JSON body too', async () => {
      const posted = await token(
        `grant_type=client_credentials&client_id=${ORDERS.id}&client_secret=${ORDERS.secret}`,
        null,
      );
      expect(posted.status).toBe(200);
      const json = await request(server())
        .post('/api/auth/token')
        .send({ grant_type: 'client_credentials', client_id: ORDERS.id, client_secret: ORDERS.secret });
      expect(json.status).toBe(200);
      expect(decodeJwt(json.body.access_token).payload.sub).toBe('orders');
    });

    it('carries the permissions of the roles given to the client: the guard, introspection and the admin API agree', async () => {
      const role = await roleWithPermissions(db, ['users.view']);
      const admin = await callerWithRoles(app, db, ['admin']);
      const given = await request(server())
        .post(`/api/admin/clients/${BILLING.id}/roles`)
        .set('authorization', `Bearer ${admin.token}`)
        .send({ role_ids: [role.id] });
      expect(given.status).toBe(200);
      expect(given.body.data).toEqual({ client_id: 'billing', roles: [{ id: role.id, name: role.name }] });
      const accessToken = await serviceToken(BILLING);
      // A route guarded by a permission the client's role holds: 200; one it lacks: 403.
      const users = await request(server()).get('/api/admin/users').set('authorization', `Bearer ${accessToken}`);
      expect(users.status).toBe(200);
      const roles = await request(server()).get('/api/admin/roles').set('authorization', `Bearer ${accessToken}`);
      expect(roles.status).toBe(403);
      expect(roles.body.error.code).toBe('FORBIDDEN');
      // A route that acts for a person: 403, never a person's data.
      const self = await me(app, accessToken);
      expect(self.status).toBe(403);
      expect(self.body.error.code).toBe('FORBIDDEN');
      const described = await introspect(accessToken);
      expect(described.body).toMatchObject({
        active: true,
        sub: 'billing',
        client_id: 'billing',
        roles: [role.name],
        permissions: ['users.view'],
        token_type: 'access',
      });
      const listed = await request(server())
        .get(`/api/admin/clients/${BILLING.id}/roles`)
        .set('authorization', `Bearer ${admin.token}`);
      expect(listed.body.data.roles).toEqual([{ id: role.id, name: role.name }]);
      // Taking the role away applies at once to the live token.
      const removed = await request(server())
        .delete(`/api/admin/clients/${BILLING.id}/roles/${role.id}`)
        .set('authorization', `Bearer ${admin.token}`);
      expect(removed.status).toBe(200);
      expect(removed.body.data.roles).toEqual([]);
      expect(
        (await request(server()).get('/api/admin/users').set('authorization', `Bearer ${accessToken}`)).status,
      ).toBe(403);
    });

    it('writes as no person: a content created with a service token has no author, the audit names the client', async () => {
      const role = await roleWithPermissions(db, ['contents.create', 'settings.view', 'settings.edit']);
      await db.query(`INSERT INTO client_roles (client_id, role_id) VALUES ($1, $2)`, [ORDERS.id, role.id]);
      const accessToken = await serviceToken(ORDERS);
      const created = await request(server())
        .post('/api/contents')
        .set('authorization', `Bearer ${accessToken}`)
        .send({ title: 'Made by a service', body: 'text' });
      expect(created.status).toBe(201);
      const [row] = await db.query(`SELECT author_id FROM contents WHERE id = $1`, [created.body.data.id]);
      expect(row.author_id).toBeNull();
      const settings = await request(server()).get('/api/admin/settings').set('authorization', `Bearer ${accessToken}`);
      expect(settings.status).toBe(200);
      const changed = await request(server())
        .put('/api/admin/settings')
        .set('authorization', `Bearer ${accessToken}`)
        .send({ email_password: true });
      expect(changed.status).toBe(200);
      const [event] = await db.query(
        `SELECT actor_id, details FROM audit_events WHERE type = 'settings.update' ORDER BY created_at DESC LIMIT 1`,
      );
      expect(event).toMatchObject({ actor_id: null, details: expect.objectContaining({ actor_client_id: 'orders' }) });
      await db.query(`DELETE FROM client_roles WHERE client_id = $1`, [ORDERS.id]);
    });

    it('administers users and roles as no person: within its own permissions, each change audited under the client', async () => {
      const role = await roleWithPermissions(db, [
        'users.view',
        'users.create',
        'users.edit',
        'users.delete',
        'roles.view',
        'roles.create',
        'contents.view',
      ]);
      await db.query(`INSERT INTO client_roles (client_id, role_id) VALUES ($1, $2)`, [ORDERS.id, role.id]);
      const accessToken = await serviceToken(ORDERS);
      const as = (req: request.Test) => req.set('authorization', `Bearer ${accessToken}`);
      const created = await as(request(server()).post('/api/admin/users')).send({
        name: 'Made By Orders',
        email: `orders-made-${Date.now()}@example.com`,
        password: 'Lantern-Orchard-Quill-42',
      });
      expect(created.status).toBe(201);
      const userId = created.body.data.id as string;
      const revoked = await as(request(server()).delete(`/api/admin/users/${userId}/sessions`));
      expect(revoked.status).toBe(200);
      const madeRole = await as(request(server()).post('/api/admin/roles')).send({
        name: `orders_role_${Date.now()}`,
        permission_ids: [],
      });
      expect(madeRole.status).toBe(201);
      // Its own permissions bound it, as a person's do: no role beyond them.
      const [settingsEdit] = await db.query(`SELECT id FROM permissions WHERE name = 'settings.edit'`);
      const beyond = await as(request(server()).post('/api/admin/roles')).send({
        name: `orders_beyond_${Date.now()}`,
        permission_ids: [settingsEdit.id],
      });
      expect(beyond.status).toBe(403);
      expect(beyond.body.error.code).toBe('FORBIDDEN');
      const deleted = await as(request(server()).delete(`/api/admin/users/${userId}`));
      expect(deleted.status).toBe(200);
      const events = await db.query(
        `SELECT type, actor_id, details->>'actor_client_id' AS client FROM audit_events
          WHERE details->>'actor_client_id' = $1 AND created_at > now() - interval '1 minute'
          ORDER BY created_at`,
        [ORDERS.id],
      );
      expect(events.map((event: { type: string }) => event.type)).toEqual(
        expect.arrayContaining([
          'user.create',
          'session.revoke_others',
          'role.create',
          'authz.escalation_refused',
          'user.delete',
        ]),
      );
      expect(events.every((event: { actor_id: string | null }) => event.actor_id === null)).toBe(true);
      await db.query(`DELETE FROM client_roles WHERE client_id = $1`, [ORDERS.id]);
    });

    it('lets nobody give a client a permission they lack, nor the admin role without roles.edit', async () => {
      const editor = await callerWithOnlyPermissions(app, db, ['roles.edit', 'roles.view']);
      const strong = await roleWithPermissions(db, ['users.delete']);
      const refused = await request(server())
        .post(`/api/admin/clients/${ORDERS.id}/roles`)
        .set('authorization', `Bearer ${editor.token}`)
        .send({ role_ids: [strong.id] });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
      const plain = await callerWithOnlyPermissions(app, db, ['users.view']);
      const notAllowed = await request(server())
        .post(`/api/admin/clients/${ORDERS.id}/roles`)
        .set('authorization', `Bearer ${plain.token}`)
        .send({ role_ids: [strong.id] });
      expect(notAllowed.status).toBe(403);
      const listed = await request(server())
        .get(`/api/admin/clients/${ORDERS.id}/roles`)
        .set('authorization', `Bearer ${editor.token}`);
      expect(listed.body.data.roles).toEqual([]);
      const unknown = await request(server())
        .get('/api/admin/clients/nobody/roles')
        .set('authorization', `Bearer ${editor.token}`);
      expect(unknown.status).toBe(404);
      const badIds = await request(server())
        .post(`/api/admin/clients/${ORDERS.id}/roles`)
        .set('authorization', `Bearer ${editor.token}`)
        .send({ role_ids: ['not-a-uuid'] });
      expect(badIds.status).toBe(400);
    });

    it('answers client authentication failures as invalid_client, 401, with WWW-Authenticate: Basic', async () => {
      for (const authorization of [
        basic(ORDERS.id, 'wrong-secret'),
        basic('nobody', ORDERS.secret),
        'Basic !!!',
        null,
      ]) {
        const res = await token('grant_type=client_credentials', authorization);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
        expect(res.headers['www-authenticate']).toMatch(/^Basic /);
        expect(res.headers['cache-control']).toBe('no-store');
      }
      // Two methods at once are refused (RFC 6749 §2.3).
      const both = await token(`grant_type=client_credentials&client_id=${ORDERS.id}&client_secret=${ORDERS.secret}`);
      expect(both.status).toBe(401);
      expect(both.body.error).toBe('invalid_client');
    });

    it('answers bad requests in RFC 6749 §5.2 shape', async () => {
      expect((await token('')).body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      expect((await token('')).status).toBe(400);
      const unsupported = await token('grant_type=password&username=a&password=b');
      expect(unsupported.status).toBe(400);
      expect(unsupported.body).toEqual({ error: 'unsupported_grant_type', error_description: expect.any(String) });
      const missing = await token('grant_type=refresh_token');
      expect(missing.status).toBe(400);
      expect(missing.body.error).toBe('invalid_request');
      const uuidClient = await token('grant_type=client_credentials', basic(UUID_CLIENT.id, UUID_CLIENT.secret));
      expect(uuidClient.status).toBe(400);
      expect(uuidClient.body.error).toBe('unauthorized_client');
    });
  });

  describe('POST /api/auth/token: refresh_token', () => {
    it('rotates like /auth/refresh: a new pair, and the old refresh token no longer works', async () => {
      const user = await registerUser(app);
      const res = await token(`grant_type=refresh_token&refresh_token=${user.tokens.refresh_token}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 900,
      });
      expect((await me(app, res.body.access_token)).status).toBe(200);
      expect((await refresh(app, res.body.refresh_token)).status).toBe(200);
    });

    it('reuse of a refresh token is invalid_grant and revokes the whole session', async () => {
      const user = await registerUser(app);
      const first = await token(`grant_type=refresh_token&refresh_token=${user.tokens.refresh_token}`);
      expect(first.status).toBe(200);
      const replay = await token(`grant_type=refresh_token&refresh_token=${user.tokens.refresh_token}`);
      expect(replay.status).toBe(400);
      expect(replay.body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/revoked/) });
      // The pair the first rotation gave is dead too.
      expect((await me(app, first.body.access_token)).status).toBe(401);
      expect((await token(`grant_type=refresh_token&refresh_token=${first.body.refresh_token}`)).body.error).toBe(
        'invalid_grant',
      );
    });

    it('refuses an access token or garbage as a refresh token: invalid_grant', async () => {
      const user = await registerUser(app);
      for (const value of [user.tokens.access_token, 'not-a-token']) {
        const res = await token(`grant_type=refresh_token&refresh_token=${value}`);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('invalid_grant');
      }
    });
  });

  describe('POST /api/auth/revoke (RFC 7009)', () => {
    // RFC 7009 §2.1: a client revokes only tokens issued to it (contract, "Sign-in for other applications").
    it("refuses a user's tokens of the API's own sign-in (issued to no client): 400 unauthorized_client, the session unchanged", async () => {
      const user = await registerUser(app);
      for (const form of [
        `token=${user.tokens.refresh_token}&token_type_hint=refresh_token`,
        `token=${user.tokens.access_token}`,
      ]) {
        const res = await revoke(form);
        expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'unauthorized_client' });
      }
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
      expect((await refresh(app, user.tokens.refresh_token)).status).toBe(200);
    });

    it("refuses another client's service token: 400 unauthorized_client, the token stays active", async () => {
      const billing = await serviceToken(BILLING);
      const res = await revoke(`token=${billing}`);
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'unauthorized_client' });
      expect((await introspect(billing)).body.active).toBe(true);
    });

    it('revokes a service token: introspection says inactive at once', async () => {
      const accessToken = await serviceToken();
      expect((await introspect(accessToken)).body.active).toBe(true);
      expect((await revoke(`token=${accessToken}`)).status).toBe(200);
      expect((await introspect(accessToken)).body).toEqual({ active: false });
    });

    it('answers 200 to an unknown or invalid token, 401 invalid_client without client authentication, 400 without a token', async () => {
      expect((await revoke('token=not-a-token')).status).toBe(200);
      const unauthenticated = await revoke('token=x', basic(ORDERS.id, 'wrong'));
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.body.error).toBe('invalid_client');
      const missing = await revoke('');
      expect(missing.status).toBe(400);
      expect(missing.body.error).toBe('invalid_request');
    });
  });

  describe('GET /api/auth/userinfo', () => {
    it("answers the person's standard claims in bare JSON", async () => {
      const user = await registerUser(app, { mobile: uniqueMobile() });
      expect(user.mobile).toEqual(expect.any(String));
      const res = await request(server())
        .get('/api/auth/userinfo')
        .set('authorization', `Bearer ${user.tokens.access_token}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        sub: user.id,
        email: user.email,
        // A new registration has not followed its verification link yet.
        email_verified: false,
        name: 'Test User',
        phone_number: user.mobile,
      });
    });

    it('omits phone_number when the account has no mobile; refuses no token (401) and a service token (403)', async () => {
      const user = await registerUser(app);
      const res = await request(server())
        .get('/api/auth/userinfo')
        .set('authorization', `Bearer ${user.tokens.access_token}`);
      expect(res.body).not.toHaveProperty('phone_number');
      expect((await request(server()).get('/api/auth/userinfo')).status).toBe(401);
      const service = await request(server())
        .get('/api/auth/userinfo')
        .set('authorization', `Bearer ${await serviceToken()}`);
      expect(service.status).toBe(403);
    });
  });
});

describe('the per-client limit of the token endpoint (TOKEN_RATE_PER_MINUTE)', () => {
  const fixture = useTestApp({
    env: {
      TOKEN_RATE_PER_MINUTE: '2',
      SERVICE_CLIENTS: `${ORDERS.id}:${ORDERS.secret},${BILLING.id}:${BILLING.secret}`,
    },
  });
  const grant = (client: { id: string; secret: string }) =>
    request(fixture.app.getHttpServer())
      .post('/api/auth/token')
      .set('authorization', basic(client.id, client.secret))
      .type('form')
      .send('grant_type=client_credentials');

  it('answers 429 temporarily_unavailable with Retry-After past the limit, for that client only', async () => {
    expect((await grant(ORDERS)).status).toBe(200);
    expect((await grant(ORDERS)).status).toBe(200);
    const limited = await grant(ORDERS);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await grant(BILLING)).status).toBe(200);
  });
});

describe('guessing client secrets at the token endpoint', () => {
  const fixture = useTestApp({
    env: { RATE_LIMIT_PER_MINUTE: '3', SERVICE_CLIENTS: `${ORDERS.id}:${ORDERS.secret}` },
  });
  const grant = (secret: string) =>
    request(fixture.app.getHttpServer())
      .post('/api/auth/token')
      .set('authorization', basic(ORDERS.id, secret))
      .type('form')
      .send('grant_type=client_credentials');

  it('blocks the address after RATE_LIMIT_PER_MINUTE failures, before judging even the right secret', async () => {
    for (let attempt = 0; attempt < 3; attempt++) expect((await grant(`wrong-${attempt}`)).status).toBe(401);
    const blocked = await grant(ORDERS.secret);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toBe('temporarily_unavailable');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('a service client with a privileged role under REQUIRE_2FA_FOR_PRIVILEGED', () => {
  const fixture = useTestApp({
    env: { REQUIRE_2FA_FOR_PRIVILEGED: 'true', SERVICE_CLIENTS: `${ORDERS.id}:${ORDERS.secret}` },
  });

  it('has no second factor to enrol: its permissions apply', async () => {
    await fixture.db.query(
      `INSERT INTO client_roles (client_id, role_id) SELECT $1, id FROM roles WHERE name = 'admin'`,
      [ORDERS.id],
    );
    const granted = await request(fixture.app.getHttpServer())
      .post('/api/auth/token')
      .set('authorization', basic(ORDERS.id, ORDERS.secret))
      .type('form')
      .send('grant_type=client_credentials');
    const res = await request(fixture.app.getHttpServer())
      .get('/api/admin/users')
      .set('authorization', `Bearer ${granted.body.access_token}`);
    await fixture.db.query(`DELETE FROM client_roles WHERE client_id = $1`, [ORDERS.id]);
    expect(res.status).toBe(200);
  });
});

describe('service token rows that expired a day ago', () => {
  const fixture = useTestApp({ env: { SERVICE_CLIENTS: `${ORDERS.id}:${ORDERS.secret}` } });
  const grant = () =>
    request(fixture.app.getHttpServer())
      .post('/api/auth/token')
      .set('authorization', basic(ORDERS.id, ORDERS.secret))
      .type('form')
      .send('grant_type=client_credentials');
  const expiredRow = async (ago: string) => {
    const [row]: { id: string }[] = await fixture.db.query(
      `INSERT INTO client_tokens (client_id, expires_at) VALUES ($1, now() - $2::interval) RETURNING id`,
      [ORDERS.id, ago],
    );
    return row!.id;
  };
  const exists = async (id: string) =>
    ((await fixture.db.query(`SELECT 1 FROM client_tokens WHERE id = $1`, [id])) as unknown[]).length === 1;

  it('are removed by a grant, at most once in ten minutes, not scanned for on every grant', async () => {
    const longExpired = await expiredRow('2 days');
    const recentlyExpired = await expiredRow('1 hour');
    expect((await grant()).status).toBe(200);
    expect(await exists(longExpired)).toBe(false);
    // Expired less than a day ago: kept (removing it would not matter to a verifier, but the rule is a day).
    expect(await exists(recentlyExpired)).toBe(true);
    const expiredSince = await expiredRow('3 days');
    expect((await grant()).status).toBe(200);
    expect(await exists(expiredSince)).toBe(true);
  });
});
