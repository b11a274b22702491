import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser, sleep } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { callerWithPermissions } from '../support/rbac-factory.js';

const ORDERS = { id: 'orders', secret: 'orders-secret-0123456789-abcdefghijkl' };
const basic = `Basic ${Buffer.from(`${ORDERS.id}:${ORDERS.secret}`).toString('base64')}`;
const STEP_MS = 30_000;

async function awayFromStepEdge(): Promise<void> {
  const intoStep = Date.now() % STEP_MS;
  if (intoStep > STEP_MS - 8_000) await sleep(STEP_MS - intoStep + 500);
}

/**
 * REQUIRE_2FA_FOR_PRIVILEGED holds at every consumer: introspection (and so every service on the
 * guard package) gives a privileged session without a second factor no role and no permission,
 * by the rule the service's own routes apply.
 */
describe('introspection under REQUIRE_2FA_FOR_PRIVILEGED', () => {
  const fixture = useTestApp({
    env: { REQUIRE_2FA_FOR_PRIVILEGED: 'true', SERVICE_CLIENTS: `${ORDERS.id}:${ORDERS.secret}` },
  });
  let app: NestFastifyApplication;
  let db: DataSource;
  beforeAll(() => void ({ app, db } = fixture));

  const introspect = (token: string) =>
    request(app.getHttpServer()).post('/api/auth/introspect').set('authorization', basic).send({ token });
  const call = (method: 'get' | 'post', path: string, token: string, body: object = {}) =>
    request(app.getHttpServer())[method](path).set('authorization', `Bearer ${token}`).send(body);

  it('answers a privileged session without a second factor with no role and no permission, until it enrols', async () => {
    const admin = await callerWithPermissions(app, db, ['users.view', 'users.edit', 'roles.edit']);
    // The service itself refuses it…
    expect((await call('get', '/api/admin/users', admin.token)).status).toBe(403);
    // …and so does every consumer.
    const confined = await introspect(admin.token);
    expect(confined.status).toBe(200);
    expect(confined.body).toMatchObject({ active: true, sub: admin.id, roles: [], permissions: [] });

    await awayFromStepEdge();
    const started = await call('post', '/api/account/totp', admin.token);
    expect(started.status).toBe(200);
    const totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
    const confirmed = await call('post', '/api/account/totp/confirm', admin.token, {
      code: totp.generate({ timestamp: Date.now() - STEP_MS }),
    });
    expect(confirmed.status).toBe(200);

    expect((await call('get', '/api/admin/users', admin.token)).status).toBe(200);
    const open = await introspect(admin.token);
    expect(open.body.active).toBe(true);
    expect(open.body.permissions).toEqual(expect.arrayContaining(['users.view', 'users.edit', 'roles.edit']));
    expect(open.body.roles.length).toBeGreaterThan(0);
  });

  it('leaves an account that is not privileged alone', async () => {
    const reader = await callerWithPermissions(app, db, ['contents.view']);
    const res = await introspect(reader.token);
    expect(res.body).toMatchObject({ active: true, permissions: ['contents.view'] });
    expect(res.body.roles).toEqual(expect.arrayContaining(['user']));
    const plain = await registerUser(app);
    expect((await introspect(plain.tokens.access_token)).body.roles).toEqual(['user']);
  });
});
