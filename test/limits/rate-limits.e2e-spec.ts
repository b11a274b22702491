import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { registrationBody, uniqueEmail, uniqueMobile } from '../support/auth-factory.js';
import { createTestApp } from '../support/test-app.js';
import { expectRateLimited, postFrom, repeat, statuses, uniqueAddress } from './limits-kit.js';

/**
 * Rate limits of one instance without Redis (counters in process). Every test starts its own app,
 * so it starts with full budgets whatever ran before: without TRUST_PROXY all requests come from
 * the one test client address. The lockout is set out of reach here; lockout.e2e-spec.ts tests it.
 */
const LIMITS = { RATE_LIMIT_PER_MINUTE: '5', LOCKOUT_THRESHOLD: '1000' };
const WRONG = 'Wrong-Password-000';

const apps: NestFastifyApplication[] = [];
async function startApp(env: Record<string, string> = {}): Promise<NestFastifyApplication> {
  const app = await createTestApp({ env: { ...LIMITS, ...env } });
  apps.push(app);
  return app;
}

// Closed after each test: a dozen apps open at once would each hold the process's signal listeners.
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

const login = (app: NestFastifyApplication, body: object, address?: string) =>
  postFrom(app, '/api/auth/login', body, address);
const forgot = (app: NestFastifyApplication, email: string, address?: string) =>
  postFrom(app, '/api/auth/forgot-password', { email }, address);

describe('rate limits per client address (in process)', () => {
  it('refuses the request over RATE_LIMIT_PER_MINUTE on an auth endpoint with 429, Retry-After and the contract body', async () => {
    const app = await startApp();
    // A different unknown email each time: only the per-address budget is spent.
    expect(await statuses(5, () => login(app, { email: uniqueEmail(), password: WRONG }))).toEqual(repeat(401, 5));
    const refused = await login(app, { email: uniqueEmail(), password: WRONG });
    expectRateLimited(refused);
    // Refused before any work: a well-formed body changes nothing, nor does a malformed one.
    expectRateLimited(await login(app, {}));
  });

  it('gives every auth endpoint its own budget', async () => {
    const app = await startApp();
    await statuses(6, () => login(app, { email: uniqueEmail(), password: WRONG }));
    expectRateLimited(await login(app, { email: uniqueEmail(), password: WRONG }));

    expect(await statuses(5, () => forgot(app, uniqueEmail()))).toEqual(repeat(200, 5));
    expectRateLimited(await forgot(app, uniqueEmail()));

    expect((await postFrom(app, '/api/auth/register', registrationBody())).status).toBe(201);
    expect((await postFrom(app, '/api/auth/refresh', { refresh_token: 'not-a-token' })).status).toBe(401);
    expect((await request(app.getHttpServer()).get('/api/auth/me')).status).toBe(401);
  });

  it('counts every /api/auth endpoint, refresh and verify-2fa included', async () => {
    const app = await startApp();
    for (const [path, body] of [
      ['/api/auth/refresh', { refresh_token: 'not-a-token' }],
      ['/api/auth/otp/verify-2fa', { temp_token: 'not-a-token', code: '123456' }],
      [
        '/api/auth/reset-password',
        { token: 'not-a-token', password: 'Long-Enough-Pass-1', password_confirmation: 'Long-Enough-Pass-1' },
      ],
    ] as const) {
      const before = await statuses(5, () => postFrom(app, path, body));
      expect(before.every((status) => status !== 429)).toBe(true);
      expectRateLimited(await postFrom(app, path, body));
    }
    const me = () => request(app.getHttpServer()).get('/api/auth/me');
    expect(await statuses(5, me)).toEqual(repeat(401, 5));
    expectRateLimited(await me());
  });

  it('ignores X-Forwarded-For when TRUST_PROXY is unset: the socket address is the client', async () => {
    const app = await startApp();
    const sent = await statuses(5, () => login(app, { email: uniqueEmail(), password: WRONG }, uniqueAddress()));
    expect(sent).toEqual(repeat(401, 5));
    expectRateLimited(await login(app, { email: uniqueEmail(), password: WRONG }, uniqueAddress()));
  });

  it('takes the client address from X-Forwarded-For with TRUST_PROXY=1', async () => {
    const app = await startApp({ TRUST_PROXY: '1' });
    const [first, second] = [uniqueAddress(), uniqueAddress()];
    expect(await statuses(5, () => login(app, { email: uniqueEmail(), password: WRONG }, first))).toEqual(
      repeat(401, 5),
    );
    expectRateLimited(await login(app, { email: uniqueEmail(), password: WRONG }, first));
    // Another client behind the same proxy has its own budget.
    expect((await login(app, { email: uniqueEmail(), password: WRONG }, second)).status).toBe(401);
  });

  it('with TRUST_PROXY=1 believes only the hop the proxy appended, not what the client wrote before it', async () => {
    const app = await startApp({ TRUST_PROXY: '1' });
    const client = uniqueAddress();
    // The client forges a different X-Forwarded-For each time; the proxy appends the real address.
    const sent = await statuses(5, () =>
      login(app, { email: uniqueEmail(), password: WRONG }, `${uniqueAddress()}, ${client}`),
    );
    expect(sent).toEqual(repeat(401, 5));
    expectRateLimited(await login(app, { email: uniqueEmail(), password: WRONG }, `${uniqueAddress()}, ${client}`));
  });

  it('applies a generous limit per address to every other route, before authentication', async () => {
    const app = await startApp({ RATE_LIMIT_GLOBAL_PER_MINUTE: '5' });
    const roles = () => request(app.getHttpServer()).get('/api/admin/roles');
    expect(await statuses(5, roles)).toEqual(repeat(401, 5));
    expectRateLimited(await roles());
    // Health checks are never limited.
    for (const path of ['/health', '/health/ready']) {
      expect(await statuses(10, () => request(app.getHttpServer()).get(path))).toEqual(repeat(200, 10));
    }
  });
});

describe('rate limits per account, whatever the address', () => {
  it('limits login attempts on one email spread over many addresses (and spellings)', async () => {
    const app = await startApp({ TRUST_PROXY: '1' });
    const email = uniqueEmail('target');
    const spellings = [email, email.toUpperCase(), ` ${email} `, email, `\t${email.toUpperCase()}`];
    const sent = await statuses(5, (i) => login(app, { email: spellings[i], password: WRONG }, uniqueAddress()));
    expect(sent).toEqual(repeat(401, 5));
    expectRateLimited(await login(app, { email, password: WRONG }, uniqueAddress()));
    // Another account from a fresh address is not affected.
    expect((await login(app, { email: uniqueEmail(), password: WRONG }, uniqueAddress())).status).toBe(401);
  });

  it('limits login attempts on one mobile whatever its spelling', async () => {
    const app = await startApp({ TRUST_PROXY: '1' });
    const mobile = uniqueMobile(); // +49176xxxxxxxx
    const spaced = `${mobile.slice(0, 3)} ${mobile.slice(3, 7)} ${mobile.slice(7)}`;
    const spellings = [mobile, spaced, mobile.slice(1), mobile, spaced];
    const sent = await statuses(5, (i) => login(app, { mobile: spellings[i], password: WRONG }, uniqueAddress()));
    expect(sent).toEqual(repeat(401, 5));
    expectRateLimited(await login(app, { mobile, password: WRONG }, uniqueAddress()));
  });

  it('limits forgot-password for one email across addresses', async () => {
    const app = await startApp({ TRUST_PROXY: '1' });
    const email = uniqueEmail();
    expect(await statuses(5, () => forgot(app, email, uniqueAddress()))).toEqual(repeat(200, 5));
    expectRateLimited(await forgot(app, email, uniqueAddress()));
  });

  it('limits send-otp and verify-otp for one mobile across addresses', async () => {
    const app = await startApp({ TRUST_PROXY: '1' });
    for (const [path, extra] of [
      ['/api/auth/send-otp', {}],
      ['/api/auth/verify-otp', { otp: '123456' }],
    ] as const) {
      const mobile = uniqueMobile();
      // Mobile sign-in is off on the shared database (403): the limit is counted before that answer.
      const sent = await statuses(5, () => postFrom(app, path, { mobile, ...extra }, uniqueAddress()));
      expect(sent.every((status) => status !== 429)).toBe(true);
      expectRateLimited(await postFrom(app, path, { mobile, ...extra }, uniqueAddress()));
    }
  });
});
