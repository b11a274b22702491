import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request, { type Response } from 'supertest';
import {
  login,
  me,
  refresh,
  registerUser,
  registrationBody,
  sleep,
  type RegisteredUser,
} from '../support/auth-factory.js';
import type { TestDatabase } from '../support/databases.mjs';
import { TcpProxy } from '../support/tcp-proxy.js';
import { createTestApp } from '../support/test-app.js';
import { fileDatabase } from '../support/test-database.js';

const CONNECT_TIMEOUT_MS = 1000;

/**
 * The database goes away while the service runs (a proxy between them drops every connection and
 * refuses new ones), then comes back on the same address. The service must answer 503 quickly,
 * report itself not ready, stay alive, and serve again by itself with nothing committed lost.
 * The database is this file's own (of the run's kind), so cutting it disturbs no other test.
 */
describe('database outage', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let app: NestFastifyApplication;
  let before: RegisteredUser;

  beforeAll(async () => {
    database = await fileDatabase();
    const target = new URL(database.url);
    proxy = await TcpProxy.start(target.hostname, Number(target.port));
    app = await createTestApp({
      env: {
        DATABASE_URL: proxy.rewrite(database.url),
        DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        DB_POOL_SIZE: '4',
      },
    });
    before = await registerUser(app);
  });

  afterAll(async () => {
    await proxy.restore();
    await app?.close();
    await proxy.stop();
  });

  const server = () => app.getHttpServer();

  function expectUnavailable(res: Response): void {
    expect({ status: res.status, body: res.body }).toEqual({
      status: 503,
      body: { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) } },
    });
  }

  /** Bounded: the connect timeout, plus room for a loaded machine; never the 30 s of a hung pool. */
  async function timed<T>(work: () => Promise<T>): Promise<T> {
    const started = Date.now();
    const result = await work();
    expect(Date.now() - started).toBeLessThan(CONNECT_TIMEOUT_MS + 4000);
    return result;
  }

  async function waitUntilReady(): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      if ((await request(server()).get('/health/ready')).status === 200) return;
      await sleep(200);
    }
    throw new Error('the service did not become ready again within 10 s');
  }

  it('answers 503 while the database is away, stays up, and recovers by itself with the data intact', async () => {
    expect((await request(server()).get('/health/ready')).status).toBe(200);
    expect((await me(app, before.tokens.access_token)).status).toBe(200);

    await proxy.cut();
    try {
      expectUnavailable(await timed(() => login(app, { email: before.email, password: before.password })));
      expectUnavailable(await timed(() => me(app, before.tokens.access_token)));
      expectUnavailable(
        await timed(() =>
          request(server())
            .post('/api/auth/register')
            .send({
              name: 'During Outage',
              email: `outage-${Date.now()}@example.com`,
              password: before.password,
              password_confirmation: before.password,
            }),
        ),
      );
      expectUnavailable(
        await timed(() =>
          request(server()).post('/api/auth/refresh').send({ refresh_token: before.tokens.refresh_token }),
        ),
      );

      const ready = await timed(() => request(server()).get('/health/ready'));
      expect(ready.status).toBe(503);
      expect(ready.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(ready.body.error.details).toEqual([{ check: 'database', status: 'down' }]);
      const live = await request(server()).get('/health');
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ success: true, data: { status: 'ok' } });

      // A second round: nothing got stuck after the first failures (no pool waiting forever).
      expectUnavailable(await timed(() => login(app, { email: before.email, password: before.password })));
    } finally {
      await proxy.restore();
    }

    await waitUntilReady();
    const again = await login(app, { email: before.email, password: before.password });
    expect(again.status).toBe(200);
    const mine = await me(app, again.body.data.access_token);
    expect(mine.status).toBe(200);
    expect(mine.body.data.email).toBe(before.email);
    // The session issued before the outage is still live.
    expect((await me(app, before.tokens.access_token)).status).toBe(200);
    const after = await registerUser(app);
    expect((await login(app, { email: after.email, password: after.password })).status).toBe(200);
  });

  it('turns requests caught mid-flight by the cut into 503, never 500, and serves again afterwards', async () => {
    const users = await Promise.all([registerUser(app), registerUser(app), registerUser(app)]);
    // supertest sends only once awaited: start every request now, before the cut.
    const start = (req: PromiseLike<Response>) => Promise.resolve(req);
    const inFlight = users.flatMap((user) => [
      start(login(app, { email: user.email, password: user.password })),
      start(me(app, user.tokens.access_token)),
      start(refresh(app, user.tokens.refresh_token)),
      start(request(server()).post('/api/auth/register').send(registrationBody())),
    ]);
    // Cut while queries (and the transactions of register and refresh) are on their way.
    await proxy.queriesInFlight(12, 2000);
    await proxy.cut();
    let responses: Response[];
    try {
      responses = await Promise.all(inFlight);
    } finally {
      await proxy.restore();
    }
    const unexpected = responses
      .filter((res) => ![200, 201, 503].includes(res.status))
      .map((res) => `${res.status} ${res.text}`);
    expect(unexpected).toEqual([]);
    for (const res of responses.filter((res) => res.status === 503)) expectUnavailable(res);

    await waitUntilReady();
    for (const user of users) {
      expect((await login(app, { email: user.email, password: user.password })).status).toBe(200);
    }
  });
});
