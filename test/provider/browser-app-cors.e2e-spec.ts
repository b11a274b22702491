import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { ClientsService } from '../../src/clients/index.js';
import { registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';

const ISSUER = 'https://auth.example.test';
const SPA = 'https://spa.example.test';
const CONSOLE = 'https://console.example.test';

describe('CORS for the origins of browser apps (public clients) on the endpoints they call', () => {
  let app: NestFastifyApplication;
  const fixture = useTestApp({ env: { ISSUER, CORS_ORIGINS: CONSOLE } });
  const server = () => app.getHttpServer();

  beforeAll(async () => {
    app = fixture.app;
    const clients = app.get(ClientsService);
    const base = { postLogoutRedirectUris: [], backchannelLogoutUri: null, firstParty: true };
    await clients.register(
      'spa',
      {
        ...base,
        name: 'Single-page app',
        type: 'public',
        redirectUris: [`${SPA}/callback`, 'http://localhost/callback', 'com.example.app:/cb'],
      },
      'admin',
    );
    await clients.register(
      'server-app',
      { ...base, name: 'Server app', type: 'confidential', redirectUris: ['https://server.example.test/callback'] },
      'admin',
    );
  });

  const form = 'application/x-www-form-urlencoded';
  const calls: [string, (origin: string) => request.Test][] = [
    [
      'GET /.well-known/openid-configuration',
      (o) => request(server()).get('/.well-known/openid-configuration').set('origin', o),
    ],
    [
      'GET /.well-known/oauth-authorization-server',
      (o) => request(server()).get('/.well-known/oauth-authorization-server').set('origin', o),
    ],
    ['GET /.well-known/jwks.json', (o) => request(server()).get('/.well-known/jwks.json').set('origin', o)],
    [
      'POST /api/auth/token',
      (o) =>
        request(server())
          .post('/api/auth/token')
          .set('origin', o)
          .type(form)
          .send('grant_type=authorization_code&client_id=spa&code=x'),
    ],
    ['GET /api/auth/userinfo', (o) => request(server()).get('/api/auth/userinfo').set('origin', o)],
    [
      'POST /api/auth/revoke',
      (o) => request(server()).post('/api/auth/revoke').set('origin', o).type(form).send('token=x'),
    ],
  ];

  it.each(calls)('%s answers a registered origin, without credentials', async (_route, call) => {
    const res = await call(SPA);
    expect(res.headers['access-control-allow-origin']).toBe(SPA);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(String(res.headers.vary)).toMatch(/origin/i);
  });

  it.each(calls)('%s answers a loopback redirect URI origin on any port', async (_route, call) => {
    const res = await call('http://localhost:5173');
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it.each(calls)('%s gives nothing to an unregistered origin', async (_route, call) => {
    for (const origin of [
      'https://evil.example.test',
      'https://server.example.test',
      'https://spa.example.test.evil.example',
      'null',
      `${SPA}/callback`,
      'http://spa.example.test',
    ]) {
      const res = await call(origin);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('a preflight from a registered origin is answered (token with Authorization)', async () => {
    const res = await request(server())
      .options('/api/auth/token')
      .set('origin', SPA)
      .set('access-control-request-method', 'POST')
      .set('access-control-request-headers', 'authorization, content-type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(SPA);
    expect(res.headers['access-control-allow-methods']).toContain('POST');
    expect(res.headers['access-control-allow-headers']).toMatch(/authorization/i);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('a preflight from an unregistered origin gets no CORS', async () => {
    const res = await request(server())
      .options('/api/auth/userinfo')
      .set('origin', 'https://evil.example.test')
      .set('access-control-request-method', 'GET')
      .set('access-control-request-headers', 'authorization');
    expect(res.status).not.toBe(204);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it.each([
    [
      'POST /api/auth/login',
      () => request(server()).post('/api/auth/login').send({ email: 'a@example.test', password: 'x' }),
    ],
    ['GET /api/account/sessions', () => request(server()).get('/api/account/sessions')],
    ['POST /api/auth/introspect', () => request(server()).post('/api/auth/introspect').type(form).send('token=x')],
    ['GET /api/auth/authorize/end-session', () => request(server()).get('/api/auth/authorize/end-session')],
    ['GET /api/auth/me', () => request(server()).get('/api/auth/me')],
  ])('a registered origin gets nothing on %s', async (_route, call) => {
    const res = await call().set('origin', SPA);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await request(server())
      .options(_route.split(' ')[1])
      .set('origin', SPA)
      .set('access-control-request-method', _route.split(' ')[0]);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a browser app reads userinfo with its access token from its origin', async () => {
    const user = await registerUser(app);
    const res = await request(server())
      .get('/api/auth/userinfo')
      .set('origin', SPA)
      .set('authorization', `Bearer ${user.tokens.access_token}`);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(SPA);
  });

  it('CORS_ORIGINS keep CORS with credentials on every route, as before', async () => {
    const res = await request(server())
      .post('/api/auth/login')
      .set('origin', CONSOLE)
      .send({ email: 'a@example.test', password: 'x' });
    expect(res.headers['access-control-allow-origin']).toBe(CONSOLE);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
  });
});
