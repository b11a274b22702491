import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHash, randomUUID } from 'node:crypto';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { useTestApp } from '../support/fixture.js';
import {
  call,
  callerWithOnlyPermissions,
  callerWithRoles,
  roleWithPermissions,
  type Caller,
} from '../support/rbac-factory.js';

const ENV_CLIENT = { id: 'orders', secret: 'orders-secret-0123456789-abcdefghijkl' };
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const uniqueId = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

describe('the client registry: /api/admin/clients', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  let admin: Caller;
  const fixture = useTestApp({ env: { SERVICE_CLIENTS: `${ENV_CLIENT.id}:${ENV_CLIENT.secret}` } });
  beforeAll(async () => {
    ({ app, db } = fixture);
    admin = await callerWithRoles(app, db, ['admin']);
  });

  const as = (actor: Caller) => ({
    get: (path: string) => call(app, 'get', path, actor.token),
    post: (path: string, body: object = {}) => call(app, 'post', path, actor.token, body),
    put: (path: string, body: object) => call(app, 'put', path, actor.token, body),
    delete: (path: string) => call(app, 'delete', path, actor.token),
  });
  const token = (clientId: string, secret: string, form = 'grant_type=client_credentials') =>
    request(app.getHttpServer())
      .post('/api/auth/token')
      .type('form')
      .set('authorization', basic(clientId, secret))
      .send(form);
  const webApp = (clientId = uniqueId('web')) => ({
    client_id: clientId,
    name: 'Web app',
    type: 'confidential',
    redirect_uris: ['https://app.example.com/callback'],
  });

  describe('creating', () => {
    it('registers a confidential client: 201, the record, and its secret once, stored only as a hash', async () => {
      const clientId = uniqueId('web');
      const created = await as(admin).post('/api/admin/clients', {
        client_id: clientId,
        name: 'Web app',
        type: 'confidential',
        redirect_uris: ['https://app.example.com/callback', 'http://127.0.0.1/callback'],
        post_logout_redirect_uris: ['https://app.example.com/bye'],
        first_party: true,
        backchannel_logout_uri: 'https://app.example.com/backchannel',
      });
      expect(created.status).toBe(201);
      expect(created.body.data).toEqual({
        client_id: clientId,
        name: 'Web app',
        type: 'confidential',
        redirect_uris: ['https://app.example.com/callback', 'http://127.0.0.1/callback'],
        post_logout_redirect_uris: ['https://app.example.com/bye'],
        grant_types: ['authorization_code', 'refresh_token'],
        first_party: true,
        backchannel_logout_uri: 'https://app.example.com/backchannel',
        token_endpoint_auth_methods: ['client_secret_basic', 'client_secret_post'],
        dynamically_registered: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });
      const secret: string = created.body.data.client_secret;
      const [row] = await db.query(`SELECT secret_hash FROM service_clients WHERE client_id = $1`, [clientId]);
      expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.secret_hash).not.toContain(secret);

      const read = await as(admin).get(`/api/admin/clients/${clientId}`);
      expect(read.status).toBe(200);
      expect(read.body.data.client_secret).toBeUndefined();
      expect(read.body.data.redirect_uris).toEqual(['https://app.example.com/callback', 'http://127.0.0.1/callback']);
      const listed = await as(admin).get('/api/admin/clients?limit=100');
      expect(listed.status).toBe(200);
      expect(listed.body.data).toMatchObject({ page: 1, limit: 100, total: expect.any(Number) });
      const item = listed.body.data.items.find((client: { client_id: string }) => client.client_id === clientId);
      expect(item).toMatchObject({ name: 'Web app', type: 'confidential' });
      expect(JSON.stringify(listed.body)).not.toContain(secret);
    });

    it('generates a client_id when none is given', async () => {
      const created = await as(admin).post('/api/admin/clients', { ...webApp(), client_id: undefined });
      expect(created.status).toBe(201);
      expect(created.body.data.client_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    });

    it('registers a public client without a secret, with a private-use redirect URI', async () => {
      const created = await as(admin).post('/api/admin/clients', {
        client_id: uniqueId('mobile'),
        name: 'Mobile app',
        type: 'public',
        redirect_uris: ['com.example.app:/callback', 'http://127.0.0.1/callback'],
      });
      expect(created.status).toBe(201);
      expect(created.body.data.client_secret).toBeUndefined();
      expect(created.body.data.token_endpoint_auth_methods).toEqual(['none']);
      const [row] = await db.query(`SELECT secret_hash FROM service_clients WHERE client_id = $1`, [
        created.body.data.client_id,
      ]);
      expect(row.secret_hash).toBeNull();
    });

    it('gives client_credentials only to a confidential client that asks for it', async () => {
      const plain = await as(admin).post('/api/admin/clients', webApp());
      const plainToken = await token(plain.body.data.client_id, plain.body.data.client_secret);
      expect(plainToken.status).toBe(400);
      expect(plainToken.body.error).toBe('unauthorized_client');

      const service = await as(admin).post('/api/admin/clients', {
        client_id: uniqueId('service'),
        name: 'Reports service',
        type: 'confidential',
        redirect_uris: [],
        grant_types: ['client_credentials'],
      });
      expect(service.status).toBe(201);
      expect(service.body.data.grant_types).toEqual(['client_credentials']);
      const serviceToken = await token(service.body.data.client_id, service.body.data.client_secret);
      expect(serviceToken.status).toBe(200);
      expect(serviceToken.body.token_type).toBe('Bearer');

      const publicAsking = await as(admin).post('/api/admin/clients', {
        client_id: uniqueId('spa'),
        name: 'SPA',
        type: 'public',
        redirect_uris: ['https://spa.example.com/cb'],
        grant_types: ['authorization_code', 'client_credentials'],
      });
      expect(publicAsking.status).toBe(400);
      expect(publicAsking.body.error.code).toBe('VALIDATION_FAILED');
      expect(publicAsking.body.error.details).toContainEqual({
        field: 'grant_types',
        message: 'client_credentials is only for confidential clients',
      });
    });

    it('refuses an unknown grant type, and authorization_code without a redirect URI', async () => {
      const unknown = await as(admin).post('/api/admin/clients', { ...webApp(), grant_types: ['implicit'] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.code).toBe('VALIDATION_FAILED');
      const noRedirect = await as(admin).post('/api/admin/clients', { ...webApp(), redirect_uris: [] });
      expect(noRedirect.status).toBe(400);
      expect(noRedirect.body.error.details).toContainEqual({
        field: 'redirect_uris',
        message: 'redirect_uris must hold at least one URI for the authorization_code grant',
      });
    });

    it.each([
      'javascript:alert(document.cookie)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'https://user@app.example.com/callback',
      'https://app.example.com@evil.example/callback',
      'https://app.example.com/callback#fragment',
      'https://*.example.com/callback',
      'http://app.example.com/callback',
      'HTTPS://APP.example.com/callback',
      'https://app.example.com/a/../callback',
      'https://app.example.com\\@evil.example/callback',
      'https://app.example.com/callback/..;/admin',
      'https://app.example.com/%2e%2e/callback',
      'https:////evil.example/callback',
      '//evil.example/callback',
      'https:\\\\evil.example\\callback',
      'https://аpp.example.com/callback',
      'https://app.example.com/call back',
      'JavaScript:alert(1)',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      '/callback',
      'com.example.app:/callback',
    ])('refuses the redirect URI %s with 400 VALIDATION_FAILED, and registers nothing', async (uri) => {
      const clientId = uniqueId('bad');
      const res = await as(admin).post('/api/admin/clients', { ...webApp(clientId), redirect_uris: [uri] });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details).toContainEqual({ field: 'redirect_uris.0', message: expect.any(String) });
      expect(await db.query(`SELECT 1 FROM service_clients WHERE client_id = $1`, [clientId])).toEqual([]);
    });

    it('refuses a bad post-logout redirect URI or back-channel logout URI', async () => {
      const postLogout = await as(admin).post('/api/admin/clients', {
        ...webApp(),
        post_logout_redirect_uris: ['javascript:alert(1)'],
      });
      expect(postLogout.status).toBe(400);
      expect(postLogout.body.error.details).toContainEqual({
        field: 'post_logout_redirect_uris.0',
        message: expect.any(String),
      });
      const backchannel = await as(admin).post('/api/admin/clients', {
        ...webApp(),
        backchannel_logout_uri: 'http://internal.example/logout',
      });
      expect(backchannel.status).toBe(400);
      expect(backchannel.body.error.details).toContainEqual({
        field: 'backchannel_logout_uri',
        message: expect.any(String),
      });
    });

    it('refuses unknown fields, a client_secret chosen by the caller among them', async () => {
      for (const extra of [{ client_secret: 'chosen-by-me-0123456789' }, { secret_hash: 'x' }, { roles: ['admin'] }]) {
        const res = await as(admin).post('/api/admin/clients', { ...webApp(), ...extra });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
      }
      const badType = await as(admin).post('/api/admin/clients', { ...webApp(), type: 'trusted' });
      expect(badType.status).toBe(400);
    });

    it('refuses an id that is taken, by a stored client or by SERVICE_CLIENTS: 409 CONFLICT', async () => {
      const body = webApp();
      expect((await as(admin).post('/api/admin/clients', body)).status).toBe(201);
      const again = await as(admin).post('/api/admin/clients', { ...body, name: 'Another' });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('CONFLICT');
      const env = await as(admin).post('/api/admin/clients', webApp(ENV_CLIENT.id));
      expect(env.status).toBe(409);
      expect(env.body.error.code).toBe('CONFLICT');
    });

    it('registers one client when two ask for the same id at once; the other is 409 CONFLICT', async () => {
      const body = webApp();
      const answers = await Promise.all([
        as(admin).post('/api/admin/clients', body),
        as(admin).post('/api/admin/clients', body),
      ]);
      expect(answers.map((res) => res.status).sort()).toEqual([201, 409]);
      const secret = answers.find((res) => res.status === 201)!.body.data.client_secret as string;
      const rows = await db.query(`SELECT secret_hash FROM service_clients WHERE client_id = $1`, [body.client_id]);
      expect(rows).toHaveLength(1);
      expect(rows[0].secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    });

    it('refuses an id that is not 1 to 100 letters, digits, dots, dashes or underscores, or looks like a user id', async () => {
      for (const clientId of ['has space', 'slash/id', '', randomUUID()]) {
        const res = await as(admin).post('/api/admin/clients', webApp(clientId));
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
      }
    });
  });

  describe('editing, new secrets, deleting', () => {
    it('changes the fields given and keeps the others; the id and the type cannot change', async () => {
      const created = await as(admin).post('/api/admin/clients', webApp());
      const clientId: string = created.body.data.client_id;
      const changed = await as(admin).put(`/api/admin/clients/${clientId}`, {
        name: 'Renamed',
        redirect_uris: ['https://app.example.com/new-callback'],
      });
      expect(changed.status).toBe(200);
      expect(changed.body.data).toMatchObject({
        client_id: clientId,
        name: 'Renamed',
        type: 'confidential',
        redirect_uris: ['https://app.example.com/new-callback'],
        grant_types: ['authorization_code', 'refresh_token'],
      });
      expect(changed.body.data.client_secret).toBeUndefined();
      for (const body of [{ type: 'public' }, { client_id: 'other' }, { client_secret: 'x' }]) {
        const refused = await as(admin).put(`/api/admin/clients/${clientId}`, body);
        expect(refused.status).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
      }
      const badUri = await as(admin).put(`/api/admin/clients/${clientId}`, { redirect_uris: ['data:,x'] });
      expect(badUri.status).toBe(400);
      expect(badUri.body.error.code).toBe('VALIDATION_FAILED');
      expect((await as(admin).get(`/api/admin/clients/${clientId}`)).body.data.redirect_uris).toEqual([
        'https://app.example.com/new-callback',
      ]);
      const cleared = await as(admin).put(`/api/admin/clients/${clientId}`, { backchannel_logout_uri: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.data.backchannel_logout_uri).toBeNull();
    });

    it('answers 404 for a client it does not hold, SERVICE_CLIENTS included', async () => {
      for (const clientId of ['nobody-here', ENV_CLIENT.id]) {
        expect((await as(admin).get(`/api/admin/clients/${clientId}`)).status).toBe(404);
        expect((await as(admin).put(`/api/admin/clients/${clientId}`, { name: 'x' })).status).toBe(404);
        expect((await as(admin).post(`/api/admin/clients/${clientId}/secret`)).status).toBe(404);
        const deleted = await as(admin).delete(`/api/admin/clients/${clientId}`);
        expect(deleted.status).toBe(404);
        expect(deleted.body.error.code).toBe('NOT_FOUND');
      }
      // The environment's client still works.
      expect((await token(ENV_CLIENT.id, ENV_CLIENT.secret)).status).toBe(200);
    });

    it('gives a new secret and refuses the old one at once', async () => {
      const created = await as(admin).post('/api/admin/clients', {
        ...webApp(),
        grant_types: ['client_credentials'],
        redirect_uris: [],
      });
      const clientId: string = created.body.data.client_id;
      const oldSecret: string = created.body.data.client_secret;
      expect((await token(clientId, oldSecret)).status).toBe(200);

      const rotated = await as(admin).post(`/api/admin/clients/${clientId}/secret`);
      expect(rotated.status).toBe(200);
      expect(rotated.body.data).toEqual({ client_id: clientId, client_secret: expect.any(String) });
      const newSecret: string = rotated.body.data.client_secret;
      expect(newSecret).not.toBe(oldSecret);

      const old = await token(clientId, oldSecret);
      expect(old.status).toBe(401);
      expect(old.body.error).toBe('invalid_client');
      expect((await token(clientId, newSecret)).status).toBe(200);
    });

    it('leaves exactly one secret working after two new secrets asked at once', async () => {
      const created = await as(admin).post('/api/admin/clients', {
        ...webApp(),
        grant_types: ['client_credentials'],
        redirect_uris: [],
      });
      const clientId: string = created.body.data.client_id;
      const [first, second] = await Promise.all([
        as(admin).post(`/api/admin/clients/${clientId}/secret`),
        as(admin).post(`/api/admin/clients/${clientId}/secret`),
      ]);
      expect([first.status, second.status]).toEqual([200, 200]);
      const working = [];
      for (const secret of [
        first.body.data.client_secret,
        second.body.data.client_secret,
        created.body.data.client_secret,
      ]) {
        if ((await token(clientId, secret)).status === 200) working.push(secret);
      }
      expect(working).toHaveLength(1);
    });

    it('has no secret to give a public client', async () => {
      const created = await as(admin).post('/api/admin/clients', {
        client_id: uniqueId('spa'),
        name: 'SPA',
        type: 'public',
        redirect_uris: ['https://spa.example.com/cb'],
      });
      const res = await as(admin).post(`/api/admin/clients/${created.body.data.client_id}/secret`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    });

    it('deletes a client with its roles, and ends its tokens', async () => {
      const created = await as(admin).post('/api/admin/clients', {
        ...webApp(),
        grant_types: ['client_credentials'],
        redirect_uris: [],
      });
      const clientId: string = created.body.data.client_id;
      const secret: string = created.body.data.client_secret;
      const role = await roleWithPermissions(db, ['contents.view']);
      expect((await as(admin).post(`/api/admin/clients/${clientId}/roles`, { role_ids: [role.id] })).status).toBe(200);
      const issued = await token(clientId, secret);
      expect(issued.status).toBe(200);
      const accessToken: string = issued.body.access_token;
      expect((await call(app, 'get', '/api/contents', accessToken)).status).toBe(200);

      const deleted = await as(admin).delete(`/api/admin/clients/${clientId}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body.data).toEqual({});
      expect((await as(admin).get(`/api/admin/clients/${clientId}`)).status).toBe(404);
      expect((await token(clientId, secret)).status).toBe(401);
      expect((await call(app, 'get', '/api/contents', accessToken)).status).toBe(401);
      expect(await db.query(`SELECT 1 FROM client_roles WHERE client_id = $1`, [clientId])).toEqual([]);

      // The same id registered again starts with no role.
      const again = await as(admin).post('/api/admin/clients', {
        ...webApp(clientId),
        grant_types: ['client_credentials'],
        redirect_uris: [],
      });
      expect(again.status).toBe(201);
      const roles = await as(admin).get(`/api/admin/clients/${clientId}/roles`);
      expect(roles.body.data.roles).toEqual([]);
    });

    it('audits every change, and never a secret', async () => {
      const created = await as(admin).post('/api/admin/clients', webApp());
      const clientId: string = created.body.data.client_id;
      await as(admin).put(`/api/admin/clients/${clientId}`, { name: 'Audited' });
      const rotated = await as(admin).post(`/api/admin/clients/${clientId}/secret`);
      await as(admin).delete(`/api/admin/clients/${clientId}`);
      const events: { type: string; actor_id: string; target_type: string; target_id: string; details: object }[] =
        await db.query(
          `SELECT type, actor_id, target_type, target_id, details FROM audit_events
            WHERE target_id = $1 ORDER BY created_at`,
          [clientId],
        );
      expect(events.map((event) => event.type)).toEqual([
        'client.create',
        'client.update',
        'client.secret',
        'client.delete',
      ]);
      expect(events.every((event) => event.actor_id === admin.id && event.target_type === 'client')).toBe(true);
      const trail = JSON.stringify(events);
      expect(trail).not.toContain(created.body.data.client_secret);
      expect(trail).not.toContain(rotated.body.data.client_secret);
    });
  });

  describe('permissions and the privilege policy', () => {
    it('needs clients.view, clients.create, clients.edit and clients.delete, each for its route', async () => {
      const created = await as(admin).post('/api/admin/clients', webApp());
      const clientId: string = created.body.data.client_id;
      const viewer = await callerWithOnlyPermissions(app, db, ['clients.view']);
      expect((await as(viewer).get('/api/admin/clients')).status).toBe(200);
      expect((await as(viewer).get(`/api/admin/clients/${clientId}`)).status).toBe(200);
      for (const res of [
        await as(viewer).post('/api/admin/clients', webApp()),
        await as(viewer).put(`/api/admin/clients/${clientId}`, { name: 'x' }),
        await as(viewer).post(`/api/admin/clients/${clientId}/secret`),
        await as(viewer).delete(`/api/admin/clients/${clientId}`),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
      }
      const nobody = await callerWithOnlyPermissions(app, db, ['users.view']);
      expect((await as(nobody).get('/api/admin/clients')).status).toBe(403);
      expect((await request(app.getHttpServer()).get('/api/admin/clients')).status).toBe(401);
    });

    it('keeps a client whose roles hold more than a lower-privileged admin out of its reach', async () => {
      const clientAdmin = await callerWithOnlyPermissions(app, db, [
        'clients.view',
        'clients.create',
        'clients.edit',
        'clients.delete',
      ]);
      const created = await as(admin).post('/api/admin/clients', {
        ...webApp(),
        grant_types: ['client_credentials'],
        redirect_uris: [],
      });
      const clientId: string = created.body.data.client_id;
      const strong = await roleWithPermissions(db, ['users.delete']);
      expect((await as(admin).post(`/api/admin/clients/${clientId}/roles`, { role_ids: [strong.id] })).status).toBe(
        200,
      );

      // A new secret would let the lower-privileged admin act as the client, with users.delete.
      const secret = await as(clientAdmin).post(`/api/admin/clients/${clientId}/secret`);
      expect(secret.status).toBe(403);
      expect(secret.body.error.code).toBe('FORBIDDEN');
      expect(secret.body.error.message).toBe(
        'You cannot change a service client holding users.delete, a permission you do not hold.',
      );
      expect(secret.body.data).toBeUndefined();
      const edit = await as(clientAdmin).put(`/api/admin/clients/${clientId}`, { name: 'Mine now' });
      expect(edit.status).toBe(403);
      const removal = await as(clientAdmin).delete(`/api/admin/clients/${clientId}`);
      expect(removal.status).toBe(403);

      // Nothing changed: the old secret still works and the client is still there, under its name.
      expect((await token(clientId, created.body.data.client_secret)).status).toBe(200);
      expect((await as(admin).get(`/api/admin/clients/${clientId}`)).body.data.name).toBe('Web app');
      const [refusal] = await db.query(
        `SELECT type FROM audit_events WHERE type = 'authz.escalation_refused' AND actor_id = $1 LIMIT 1`,
        [clientAdmin.id],
      );
      expect(refusal).toEqual({ type: 'authz.escalation_refused' });

      // A client without roles is within its reach.
      const own = await as(clientAdmin).post('/api/admin/clients', webApp());
      expect(own.status).toBe(201);
      const ownId: string = own.body.data.client_id;
      expect((await as(clientAdmin).put(`/api/admin/clients/${ownId}`, { name: 'Mine' })).status).toBe(200);
      expect((await as(clientAdmin).post(`/api/admin/clients/${ownId}/secret`)).status).toBe(200);
      expect((await as(clientAdmin).delete(`/api/admin/clients/${ownId}`)).status).toBe(200);
    });

    it('gives the admin role the four clients permissions, in the group Clients', async () => {
      const rows: { name: string; group_name: string; is_system: boolean }[] = await db.query(
        `SELECT p.name, p.group_name, p.is_system FROM permissions p
           JOIN role_permissions rp ON rp.permission_id = p.id JOIN roles r ON r.id = rp.role_id
          WHERE r.name = 'admin' AND p.name LIKE 'clients.%' ORDER BY p.name`,
      );
      expect(rows).toEqual([
        { name: 'clients.create', group_name: 'Clients', is_system: true },
        { name: 'clients.delete', group_name: 'Clients', is_system: true },
        { name: 'clients.edit', group_name: 'Clients', is_system: true },
        { name: 'clients.view', group_name: 'Clients', is_system: true },
      ]);
    });
  });
});
