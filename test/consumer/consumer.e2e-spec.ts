import { JwtService } from '@nestjs/jwt';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DataSource } from 'typeorm';
import { createTestApp } from '../support/test-app.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';
import { sharedDataSource } from '../support/test-database.js';
import {
  buildExample,
  grantPermissions,
  login,
  logout,
  registerUser,
  sleep,
  startConsumer,
  type RunningConsumer,
  type TestUser,
} from './consumer-support.js';

/** The example's cache lifetime in this test: how long a revoked token may still open a route there. */
const CACHE_TTL_MS = 200;

describe('another Nest service guarded by this one (examples/consumer, permissions from GET /api/auth/me)', () => {
  let auth: NestFastifyApplication;
  let authUrl: string;
  let consumer: RunningConsumer;
  let dataSource: DataSource;
  let permitted: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    await buildExample();
    auth = await createTestApp();
    await auth.listen(0, '127.0.0.1');
    authUrl = await auth.getUrl();
    consumer = await startConsumer({ AUTH_SERVICE_URL: authUrl, JWT_SECRET: TEST_JWT_SECRET, AUTH_CACHE_TTL_MS: String(CACHE_TTL_MS) });
    dataSource = sharedDataSource();
    await dataSource.initialize();
    [permitted, other] = await Promise.all([registerUser(authUrl), registerUser(authUrl)]);
    await grantPermissions(dataSource, permitted.id, ['contents.view']);
  }, 120_000);

  afterAll(async () => {
    await consumer?.stop();
    await auth?.close();
    if (dataSource?.isInitialized) await dataSource.destroy();
  });

  const reports = (headers: Record<string, string> = {}) => fetch(`${consumer.baseUrl}/reports`, { headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const UNAUTHENTICATED = { success: false, error: { code: 'UNAUTHENTICATED', message: expect.any(String) } };

  it('opens the contents.view route for a user holding contents.view, with a token from this service', async () => {
    const { accessToken } = await login(authUrl, permitted);
    const res = await reports(bearer(accessToken));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { success: boolean; data: { viewer: { id: string; email: string } } };
    expect(body.success).toBe(true);
    expect(body.data.viewer).toEqual({ id: permitted.id, email: permitted.email });
  });

  it('accepts the access_token cookie as well as the Bearer header', async () => {
    const { accessToken } = await login(authUrl, permitted);
    expect((await reports({ cookie: `theme=dark; access_token=${accessToken}` })).status).toBe(200);
  });

  it('refuses a user without contents.view with 403 FORBIDDEN naming the permission', async () => {
    const { accessToken } = await login(authUrl, other);
    const res = await reports(bearer(accessToken));
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      success: false,
      error: { code: 'FORBIDDEN', message: expect.stringContaining('contents.view'), details: [{ permission: 'contents.view' }] },
    });
  });

  it('refuses a request without a token with 401 UNAUTHENTICATED', async () => {
    const res = await reports();
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(UNAUTHENTICATED);
  });

  it('refuses a token signed with another secret, and a refresh token, with 401', async () => {
    const { accessToken, refreshToken } = await login(authUrl, permitted);
    const claims = new JwtService().decode<Record<string, unknown>>(accessToken);
    const forged = await new JwtService({ secret: `${TEST_JWT_SECRET}-not-it` }).signAsync({ ...claims });
    const forgedRes = await reports(bearer(forged));
    expect(forgedRes.status).toBe(401);
    expect(await forgedRes.json()).toEqual(UNAUTHENTICATED);
    expect((await reports(bearer(refreshToken))).status).toBe(401);
  });

  it('serves its @Public() route to anybody', async () => {
    const res = await fetch(`${consumer.baseUrl}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, data: { status: 'ok' } });
  });

  it('refuses a token whose session was logged out once the cache lifetime has passed', async () => {
    const { accessToken } = await login(authUrl, permitted);
    expect((await reports(bearer(accessToken))).status).toBe(200);
    expect(await logout(authUrl, accessToken)).toBe(200);
    await sleep(CACHE_TTL_MS + 200);
    const res = await reports(bearer(accessToken));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(UNAUTHENTICATED);
  });
});
