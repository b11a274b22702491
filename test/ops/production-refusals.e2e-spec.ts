import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { me, registerUser, sleep, uniqueEmail, uniqueMobile } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { createTestApp } from '../support/test-app.js';

const PRODUCTION = { APP_ENV: 'production', SMS_TRANSPORT: 'webhook', SMS_WEBHOOK_URL: 'http://127.0.0.1:9/sms' };
const METRICS_TOKEN = 'scrape-token-0123456789abcdef';
const randomSecret = () => randomBytes(48).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

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

describe('production: /metrics', () => {
  it('does not exist without METRICS_TOKEN (404, like any unknown route)', async () => {
    const app = await createTestApp({ env: PRODUCTION });
    try {
      const res = await request(app.getHttpServer()).get('/metrics');
      expect(res.status).toBe(404);
      const unknown = await request(app.getHttpServer()).get('/no-such-page');
      expect(res.body).toEqual(unknown.body);
      expect(res.text).not.toContain('outbox_deliveries_total');
    } finally {
      await app.close();
    }
  });

  it('answers only the scraper that presents METRICS_TOKEN', async () => {
    const app = await createTestApp({ env: { ...PRODUCTION, METRICS_TOKEN } });
    try {
      expect((await request(app.getHttpServer()).get('/metrics')).status).toBe(401);
      const res = await request(app.getHttpServer()).get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain('auth_logins_total');
    } finally {
      await app.close();
    }
  });
});

describe('production: every verification secret passes the rule JWT_SECRET passes', () => {
  it.each([
    ['JWT_PREVIOUS_SECRETS', { JWT_PREVIOUS_SECRETS: `secret@${now()}` }],
    ['JWT_PREVIOUS_SECRETS', { JWT_PREVIOUS_SECRETS: `${'a'.repeat(64)}@${now()}` }],
    ['SERVICE_CLIENTS', { SERVICE_CLIENTS: 'orders:secret' }],
    ['SERVICE_CLIENTS', { SERVICE_CLIENTS: `orders:${randomSecret()},billing:${'a'.repeat(64)}` }],
  ])('refuses to start with a guessable secret in %s', async (name, env) => {
    await expect(createTestApp({ env: { ...PRODUCTION, ...env } })).rejects.toThrow(name);
  });

  it('refuses a previous secret written without its retirement time', async () => {
    await expect(createTestApp({ env: { ...PRODUCTION, JWT_PREVIOUS_SECRETS: randomSecret() } })).rejects.toThrow(
      /JWT_PREVIOUS_SECRETS entry 1 has no retirement time/,
    );
  });

  it('starts with strong ones', async () => {
    const app = await createTestApp({
      env: {
        ...PRODUCTION,
        JWT_PREVIOUS_SECRETS: `${randomSecret()}@${now()}`,
        SERVICE_CLIENTS: `orders:${randomSecret()}`,
      },
    });
    await app.close();
  });
});

describe('a retired HS256 secret verifies nothing after REFRESH_TOKEN_EXPIRY from its retirement', () => {
  it('accepts its tokens within the window and refuses them after it', async () => {
    const oldSecret = randomSecret();
    const newSecret = randomSecret();
    const before = await createTestApp({ env: { JWT_SECRET: oldSecret } });
    const retiredNow = await createTestApp({
      env: { JWT_SECRET: newSecret, JWT_PREVIOUS_SECRETS: `${oldSecret}@${now()}` },
    });
    const retiredLongAgo = await createTestApp({
      env: { JWT_SECRET: newSecret, JWT_PREVIOUS_SECRETS: `${oldSecret}@${now() - 604_800 - 5}` },
    });
    // A short REFRESH_TOKEN_EXPIRY: the secret ends while the process runs, not only at a restart.
    // The window is long enough for a loaded machine to start the app and ask once inside it; the
    // second question waits for the window's end as the retirement stamp writes it.
    const windowSeconds = 15;
    const retiredAt = now();
    const shortWindow = await createTestApp({
      env: {
        JWT_SECRET: newSecret,
        JWT_PREVIOUS_SECRETS: `${oldSecret}@${retiredAt}`,
        REFRESH_TOKEN_EXPIRY: String(windowSeconds),
      },
    });
    try {
      const user = await registerUser(before);
      expect((await me(retiredNow, user.tokens.access_token)).status).toBe(200);
      expect((await me(retiredLongAgo, user.tokens.access_token)).status).toBe(401);
      expect((await me(shortWindow, user.tokens.access_token)).status).toBe(200);
      await sleep(Math.max(0, (retiredAt + windowSeconds + 1) * 1000 - Date.now()));
      expect((await me(shortWindow, user.tokens.access_token)).status).toBe(401);
      expect((await me(retiredNow, user.tokens.access_token)).status).toBe(200);
    } finally {
      await Promise.all([before.close(), retiredNow.close(), retiredLongAgo.close(), shortWindow.close()]);
    }
  });
});

describe('a stand-in message for an unknown account is counted like a real one', () => {
  const fixture = useTestApp({
    smtp: true,
    sms: true,
    env: { AUTH_EMAIL_PASSWORD: 'true', AUTH_MOBILE_OTP: 'true', OTP_RESEND_SECONDS: '0' },
  });
  let app: NestFastifyApplication;
  beforeAll(() => void ({ app } = fixture));

  const scrape = async () => (await request(app.getHttpServer()).get('/metrics')).text;
  /** Waits until the counter has moved by `delta` since `from`, and answers how far it moved. */
  async function movedBy(labels: Record<string, string>, from: number, delta: number): Promise<number> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const moved = sample(await scrape(), 'outbox_deliveries_total', labels) - from;
      if (moved >= delta || Date.now() > deadline) return moved;
      await sleep(100);
    }
  }

  it('forgot-password: outbox_deliveries_total moves by one for a known and for an unknown address', async () => {
    const labels = { channel: 'mail', kind: 'password_reset', outcome: 'sent' };
    const user = await registerUser(app);
    let from = sample(await scrape(), 'outbox_deliveries_total', labels);
    await request(app.getHttpServer()).post('/api/auth/forgot-password').send({ email: user.email }).expect(200);
    await fixture.smtp.waitForMail(user.email);
    expect(await movedBy(labels, from, 1)).toBe(1);
    from = sample(await scrape(), 'outbox_deliveries_total', labels);
    await request(app.getHttpServer()).post('/api/auth/forgot-password').send({ email: uniqueEmail() }).expect(200);
    expect(await movedBy(labels, from, 1)).toBe(1);
    await sleep(300);
    expect(sample(await scrape(), 'outbox_deliveries_total', labels) - from).toBe(1);
  });

  it('send-otp: outbox_deliveries_total moves by one for a known and for an unknown mobile', async () => {
    const labels = { channel: 'sms', kind: 'otp.login', outcome: 'sent' };
    const mobile = uniqueMobile();
    await registerUser(app, { mobile });
    let from = sample(await scrape(), 'outbox_deliveries_total', labels);
    await request(app.getHttpServer()).post('/api/auth/send-otp').send({ mobile }).expect(200);
    await fixture.sms.codeFor(mobile);
    expect(await movedBy(labels, from, 1)).toBe(1);
    from = sample(await scrape(), 'outbox_deliveries_total', labels);
    await request(app.getHttpServer()).post('/api/auth/send-otp').send({ mobile: uniqueMobile() }).expect(200);
    expect(await movedBy(labels, from, 1)).toBe(1);
  });
});
