import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { login, loginTokens, refresh, registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';

const METRICS_TOKEN = 'scrape-token-0123456789abcdef';

/** The value of one sample of the Prometheus text, or 0 when the series has not appeared yet. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[3]);
  }
  return 0;
}

describe('GET /metrics', () => {
  describe('without METRICS_TOKEN', () => {
    let app: NestFastifyApplication;
    const scrape = async (): Promise<string> => {
      const res = await request(app.getHttpServer()).get('/metrics');
      expect(res.status).toBe(200);
      return res.text;
    };

    const fixture = useTestApp();
    beforeAll(() => void ({ app } = fixture));

    it('answers Prometheus text, outside the /api envelope', async () => {
      const res = await request(app.getHttpServer()).get('/metrics');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
      expect(res.text).toContain('# TYPE auth_logins_total counter');
      expect(res.text).toMatch(/^outbox_pending_messages \d+$/m);
      expect(res.text).toMatch(/^database_pool_connections\{state="total"\} \d+$/m);
      expect((await request(app.getHttpServer()).get('/api/metrics')).status).toBe(404);
    });

    it("carries the process's own metrics beside the service's: CPU, memory, event-loop lag, GC", async () => {
      const text = await scrape();
      expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
      expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
      expect(text).toContain('# TYPE nodejs_gc_duration_seconds histogram');
      expect(text).toContain('# TYPE process_open_fds gauge');
      // Still one registry: the service's series are there too.
      expect(text).toContain('# TYPE auth_logins_total counter');
    });

    it('counts requests by route pattern and status, never by raw URL', async () => {
      const user = await registerUser(app);
      const before = await scrape();
      await request(app.getHttpServer()).get('/api/auth/me').set('authorization', `Bearer ${user.tokens.access_token}`);
      await request(app.getHttpServer()).get('/api/auth/me');
      await request(app.getHttpServer()).get('/api/no-such-route/1234');
      const after = await scrape();
      const count = (text: string, labels: Record<string, string>) =>
        sample(text, 'http_request_duration_seconds_count', { method: 'GET', ...labels });
      expect(
        count(after, { route: '/api/auth/me', status: '200' }) -
          count(before, { route: '/api/auth/me', status: '200' }),
      ).toBe(1);
      expect(
        count(after, { route: '/api/auth/me', status: '401' }) -
          count(before, { route: '/api/auth/me', status: '401' }),
      ).toBe(1);
      expect(
        count(after, { route: 'unmatched', status: '404' }) - count(before, { route: 'unmatched', status: '404' }),
      ).toBe(1);
      expect(after).not.toContain('no-such-route');
    });

    it('counts logins by method and outcome, and refresh-token reuse', async () => {
      const user = await registerUser(app);
      const before = await scrape();
      const tokens = await loginTokens(app, user);
      expect((await login(app, { email: user.email, password: 'Wrong-Password-123' })).status).toBe(401);
      expect((await refresh(app, tokens.refresh_token)).status).toBe(200);
      expect((await refresh(app, tokens.refresh_token)).status).toBe(401);
      const after = await scrape();
      const delta = (name: string, labels: Record<string, string> = {}) =>
        sample(after, name, labels) - sample(before, name, labels);
      expect(delta('auth_logins_total', { method: 'email', outcome: 'success' })).toBe(1);
      expect(delta('auth_logins_total', { method: 'email', outcome: 'failure' })).toBe(1);
      expect(delta('auth_refresh_reuse_total')).toBe(1);
    });
  });

  describe('with METRICS_TOKEN', () => {
    let app: NestFastifyApplication;

    const fixture = useTestApp({ env: { METRICS_TOKEN } });
    beforeAll(() => void ({ app } = fixture));

    it('refuses a scrape without the token, or with another one, with 401 UNAUTHENTICATED', async () => {
      for (const authorization of [
        undefined,
        'Bearer wrong-token',
        `Bearer ${METRICS_TOKEN}x`,
        `Basic ${METRICS_TOKEN}`,
      ]) {
        const req = request(app.getHttpServer()).get('/metrics');
        const res = authorization ? await req.set('authorization', authorization) : await req;
        expect(res.status).toBe(401);
        expect(res.body).toEqual({
          success: false,
          error: { code: 'UNAUTHENTICATED', message: 'A valid metrics token is required.' },
        });
        expect(res.text).not.toContain('http_request_duration_seconds');
      }
    });

    it('answers the scraper that presents it', async () => {
      const res = await request(app.getHttpServer()).get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain('auth_logins_total');
    });
  });

  describe('rate-limit refusals', () => {
    let app: NestFastifyApplication;

    const fixture = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    beforeAll(() => void ({ app } = fixture));

    it('counts every 429', async () => {
      const before = sample(
        (await request(app.getHttpServer()).get('/metrics')).text,
        'http_rate_limit_refusals_total',
      );
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(
          (await request(app.getHttpServer()).post('/api/auth/forgot-password').send({ email: 'nobody@example.com' }))
            .status,
        );
      }
      const refused = statuses.filter((status) => status === 429).length;
      expect(refused).toBeGreaterThan(0);
      const after = sample((await request(app.getHttpServer()).get('/metrics')).text, 'http_rate_limit_refusals_total');
      expect(after - before).toBe(refused);
    });
  });
});
