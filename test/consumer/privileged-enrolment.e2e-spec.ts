import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { callerWithRoles } from '../support/rbac-factory.js';
import { sleep } from '../support/auth-factory.js';
import { createTestApp } from '../support/test-app.js';
import { installConsumer, startConsumer, type RunningConsumer } from './consumer-support.js';

const CLIENT = { id: 'reports-service', secret: 'reports-service-secret-0123456789-abcdef' };
const CACHE_TTL_MS = 300;
const STEP_MS = 30_000;

/**
 * REQUIRE_2FA_FOR_PRIVILEGED reaches every service on the guard package: an administrator without
 * a second factor holds no permission there (the introspection answer carries none) until it
 * enrols, by the rule the auth service applies to its own routes.
 */
describe('the packed guard in another service, with REQUIRE_2FA_FOR_PRIVILEGED', () => {
  let auth: NestFastifyApplication;
  let consumer: RunningConsumer;
  let db: DataSource;

  beforeAll(async () => {
    const folder = await installConsumer(12);
    auth = await createTestApp({
      env: { SERVICE_CLIENTS: `${CLIENT.id}:${CLIENT.secret}`, REQUIRE_2FA_FOR_PRIVILEGED: 'true' },
    });
    await auth.listen(0, '127.0.0.1');
    db = auth.get(DataSource);
    consumer = await startConsumer(folder, {
      AUTH_URL: (await auth.getUrl()).replace('[::1]', '127.0.0.1'),
      AUTH_CLIENT_ID: CLIENT.id,
      AUTH_CLIENT_SECRET: CLIENT.secret,
      AUTH_CACHE_TTL_MS: String(CACHE_TTL_MS),
    });
  }, 900_000);

  afterAll(async () => {
    await consumer?.stop();
    await auth?.close();
  });

  const reports = (token: string) =>
    fetch(`${consumer.baseUrl}/reports`, { headers: { authorization: `Bearer ${token}` } });

  it('refuses an administrator without a second factor, and lets it in once it has enrolled', async () => {
    const admin = await callerWithRoles(auth, db, ['admin']);
    const refused = await reports(admin.token);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');

    if (Date.now() % STEP_MS > STEP_MS - 8_000) await sleep(8_500);
    const call = (path: string, body: object = {}) =>
      request(auth.getHttpServer()).post(path).set('authorization', `Bearer ${admin.token}`).send(body);
    const started = await call('/api/account/totp');
    expect(started.status).toBe(200);
    const totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
    expect((await call('/api/account/totp/confirm', { code: totp.generate() })).status).toBe(200);

    await sleep(CACHE_TTL_MS + 200);
    expect((await reports(admin.token)).status).toBe(200);
  });
});
