import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { ClientsService } from '../../src/clients/index.js';
import { logout, registerUser } from '../support/auth-factory.js';
import { callerWithPermissions } from '../support/rbac-factory.js';
import { useTestApp } from '../support/fixture.js';
import { createTestApp } from '../support/test-app.js';

const ORDERS = { id: 'orders', secret: 'orders-secret-0123456789-abcdefghijkl' };
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('POST /api/auth/introspect (RFC 7662) and GET /.well-known/jwks.json', () => {
  let app: NestFastifyApplication;
  let db: DataSource;

  const fixture = useTestApp({
    env: { SERVICE_CLIENTS: `${ORDERS.id}:${ORDERS.secret},billing:billing-secret-0123456789-abcdefgh` },
  });
  beforeAll(() => void ({ app, db } = fixture));

  const introspect = (token: unknown, authorization = basic(ORDERS.id, ORDERS.secret), on = app) =>
    request(on.getHttpServer()).post('/api/auth/introspect').set('authorization', authorization).send({ token });

  it('describes a live access token in bare JSON: sub, sid, exp, email, roles, permissions, auth_time, amr', async () => {
    const caller = await callerWithPermissions(app, db, ['contents.view']);
    const res = await introspect(caller.token);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      active: true,
      sub: caller.id,
      sid: expect.any(String),
      exp: expect.any(Number),
      email: caller.email,
      name: 'Test User',
      roles: expect.arrayContaining(['user']),
      permissions: ['contents.view'],
      token_type: 'access',
      auth_time: expect.any(Number),
      amr: ['pwd'],
    });
    expect(res.body.exp).toBeGreaterThan(Date.now() / 1000);
  });

  it('takes the token from a form body too', async () => {
    const user = await registerUser(app);
    const res = await request(app.getHttpServer())
      .post('/api/auth/introspect')
      .set('authorization', basic(ORDERS.id, ORDERS.secret))
      .type('form')
      .send(`token=${user.tokens.access_token}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ active: true, sub: user.id });
  });

  it('keeps refusing form bodies on every other route', async () => {
    const res = await request(app.getHttpServer())
      .post('/api/auth/login')
      .type('form')
      .send('email=a@example.com&password=x');
    expect(res.status).toBe(415);
  });

  it('answers {active: false} for a logged-out session, a refresh token, a forged token and garbage', async () => {
    const user = await registerUser(app);
    expect((await introspect(user.tokens.refresh_token)).body).toEqual({ active: false });
    const [header, payload] = user.tokens.access_token.split('.');
    expect((await introspect(`${header}.${payload}.AAAA`)).body).toEqual({ active: false });
    expect((await introspect('not-a-token')).body).toEqual({ active: false });
    expect((await logout(app, user.tokens.access_token)).status).toBe(200);
    const res = await introspect(user.tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ active: false });
  });

  it('refuses missing or wrong client credentials with 401, and a request without a token with 400', async () => {
    const user = await registerUser(app);
    const noCredentials = await request(app.getHttpServer())
      .post('/api/auth/introspect')
      .send({ token: user.tokens.access_token });
    expect(noCredentials.status).toBe(401);
    expect(noCredentials.headers['www-authenticate']).toMatch(/^Basic/);
    expect(noCredentials.body).toEqual({
      success: false,
      error: { code: 'UNAUTHENTICATED', message: 'Client authentication failed.' },
    });
    expect((await introspect(user.tokens.access_token, basic(ORDERS.id, `${ORDERS.secret}x`))).status).toBe(401);
    expect((await introspect(user.tokens.access_token, basic('nobody', ORDERS.secret))).status).toBe(401);
    expect((await introspect(user.tokens.access_token, `Bearer ${user.tokens.access_token}`)).status).toBe(401);
    const missing = await introspect(undefined);
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('accepts a client made by create-client, whose secret is stored only as a hash', async () => {
    const { secret } = await app.get(ClientsService).createFromCli('reports', {});
    const user = await registerUser(app);
    expect((await introspect(user.tokens.access_token, basic('reports', secret!))).body).toMatchObject({
      active: true,
    });
    const [row] = await db.query(`SELECT secret_hash FROM service_clients WHERE client_id = 'reports'`);
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.secret_hash).not.toContain(secret);
  });

  it('never spends the per-address limit of the sign-in endpoints, and has its own per-client limit', async () => {
    const user = await registerUser(app);
    // An instance whose sign-in endpoints allow 3 requests a minute per address.
    const limited = await createTestApp({
      env: {
        SERVICE_CLIENTS: `${ORDERS.id}:${ORDERS.secret},billing:billing-secret-0123456789-abcdefgh`,
        RATE_LIMIT_PER_MINUTE: '3',
        INTROSPECT_RATE_PER_MINUTE: '40',
      },
    });
    try {
      const billing = basic('billing', 'billing-secret-0123456789-abcdefgh');
      const statuses: number[] = [];
      for (let i = 0; i < 42; i++) statuses.push((await introspect(user.tokens.access_token, billing, limited)).status);
      expect(statuses.slice(0, 40)).toEqual(Array(40).fill(200));
      expect(statuses.slice(40)).toEqual([429, 429]);
      // Another client's budget is its own.
      expect((await introspect(user.tokens.access_token, undefined, limited)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('refuses a guesser of client secrets once an address has failed RATE_LIMIT_PER_MINUTE times, before judging the secret', async () => {
    const user = await registerUser(app);
    const limited = await createTestApp({
      env: { SERVICE_CLIENTS: `${ORDERS.id}:${ORDERS.secret}`, RATE_LIMIT_PER_MINUTE: '3' },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await introspect(user.tokens.access_token, basic(ORDERS.id, `guess-${i}`), limited)).status);
      expect(statuses).toEqual([401, 401, 401]);
      const guess = await introspect(user.tokens.access_token, basic(ORDERS.id, 'guess-4'), limited);
      expect(guess.status).toBe(429);
      expect(guess.body.error.code).toBe('RATE_LIMITED');
      expect(Number(guess.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Even the right secret waits: an answer that differed would tell the guesser it was right.
      expect((await introspect(user.tokens.access_token, undefined, limited)).status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('publishes no token key under HS256: a shared secret is never published', async () => {
    const res = await request(app.getHttpServer()).get('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    // The one key is the OpenID provider's RS256 ID-token key, a public key.
    expect(res.body.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256' })]);
    expect(res.body.keys[0]).not.toHaveProperty('d');
  });
});
