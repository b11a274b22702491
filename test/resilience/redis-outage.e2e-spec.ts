import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { login, logout, me, registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { TEST_REDIS_URL } from '../support/redis.js';
import { createTestApp } from '../support/test-app.js';

/** A loopback port with nothing listening: every Redis command fails at once. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const DEAD_PORT = await deadPort();

describe('with Redis configured but unreachable', () => {
  let app: NestFastifyApplication;

  const fixture = useTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${DEAD_PORT}`, RATE_LIMIT_PER_MINUTE: '5' } });

  beforeAll(() => void ({ app } = fixture));

  it('keeps serving from PostgreSQL, and a logout is still refused on the next request', async () => {
    const user = await registerUser(app);
    const signedIn = await login(app, { email: user.email, password: user.password });
    expect(signedIn.status).toBe(200);
    const token = signedIn.body.data.access_token as string;
    expect((await me(app, token)).status).toBe(200);
    expect((await logout(app, token)).status).toBe(200);
    const after = await me(app, token);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('still limits requests, in process', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push(
        (await request(app.getHttpServer()).post('/api/auth/forgot-password').send({ email: 'nobody@example.com' }))
          .status,
      );
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });

  it('reports not ready (Redis is configured), while /health stays up', async () => {
    const ready = await request(app.getHttpServer()).get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(ready.body.error.details).toEqual(
      expect.arrayContaining([
        { check: 'redis', status: 'down' },
        { check: 'database', status: 'up' },
      ]),
    );
    expect((await request(app.getHttpServer()).get('/health')).status).toBe(200);
  });
});

describe('with Redis configured and reachable', () => {
  it('reports ready with both checks up', async () => {
    const app = await createTestApp({ env: { REDIS_URL: TEST_REDIS_URL } });

    try {
      const ready = await request(app.getHttpServer()).get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.data.info).toMatchObject({ database: { status: 'up' }, redis: { status: 'up' } });
    } finally {
      await app.close();
    }
  });
});
