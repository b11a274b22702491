import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHash } from 'node:crypto';
import { uniqueEmail } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { RecordingLogger } from '../support/recording-logger.js';
import { useRedis, TEST_REDIS_URL } from '../support/redis.js';
import { createTestApp } from '../support/test-app.js';
import { expectRateLimited, postFrom, repeat, statuses, uniqueAddress } from './limits-kit.js';

/**
 * Rate limits with REDIS_URL: counters live in Redis, so a limit holds across instances. Redis
 * is shared with other test files and earlier runs, so every test uses its own client address
 * (TRUST_PROXY=1 and X-Forwarded-For) and its own accounts.
 */
const ENV = {
  REDIS_URL: TEST_REDIS_URL,
  TRUST_PROXY: '1',
  RATE_LIMIT_PER_MINUTE: '5',
  LOCKOUT_THRESHOLD: '1000',
  DB_POOL_SIZE: '4',
};
const WRONG = 'Wrong-Password-000';

const login = (app: NestFastifyApplication, body: object, address: string) =>
  postFrom(app, '/api/auth/login', body, address);

/**
 * The Redis keys of the per-account limit of POST /api/auth/login: the throttler names a counter
 * by the SHA-256 of the controller, the handler, the limit's name and the tracker (for this limit,
 * the normalised email).
 */
function loginAccountKeys(email: string): { hits: string; block: string } {
  const digest = createHash('sha256').update(`AuthController-login-auth-account-email:${email}`).digest('hex');
  return { hits: `ratelimit:{${digest}}:hits`, block: `ratelimit:{${digest}}:block` };
}

describe('rate limits shared through Redis by two instances', () => {
  const redis = useRedis();
  const fixture = useTestApp({ env: ENV, instances: 2 });
  let first: NestFastifyApplication;
  let second: NestFastifyApplication;
  beforeAll(() => {
    [first, second] = fixture.apps;
  });

  it('counts one client address across both instances', async () => {
    const address = uniqueAddress();
    const sent = await statuses(5, (i) =>
      login(i % 2 ? second : first, { email: uniqueEmail(), password: WRONG }, address),
    );
    expect(sent).toEqual(repeat(401, 5));
    expectRateLimited(await login(first, { email: uniqueEmail(), password: WRONG }, address));
    expectRateLimited(await login(second, { email: uniqueEmail(), password: WRONG }, address));
    // Another address still has its budget on both.
    expect((await login(second, { email: uniqueEmail(), password: WRONG }, uniqueAddress())).status).toBe(401);
  });

  it('counts one account across both instances and many addresses', async () => {
    const email = uniqueEmail('shared-target');
    const sent = await statuses(5, (i) => login(i % 2 ? second : first, { email, password: WRONG }, uniqueAddress()));
    expect(sent).toEqual(repeat(401, 5));
    expectRateLimited(await login(second, { email, password: WRONG }, uniqueAddress()));
    expectRateLimited(await login(first, { email: email.toUpperCase(), password: WRONG }, uniqueAddress()));
    // The account is blocked in Redis itself, for at most the one-minute window.
    const keys = loginAccountKeys(email);
    const blockMs = await redis.client.pttl(keys.block);
    expect(blockMs).toBeGreaterThan(0);
    expect(blockMs).toBeLessThanOrEqual(60_000);
  });

  it('keeps no client address or email in Redis: each counter is named by a digest', async () => {
    const address = uniqueAddress();
    const email = uniqueEmail('not-in-redis');
    expect((await login(first, { email, password: WRONG }, address)).status).toBe(401);
    const keys = await redis.client.keys('ratelimit:*');
    expect(keys).toContain(loginAccountKeys(email).hits);
    for (const key of keys) expect(key).toMatch(/^ratelimit:\{[0-9a-f]{64}\}:(hits|block)$/);
    expect(keys.join(' ')).not.toContain(address);
    expect(keys.join(' ')).not.toContain(email);
  });

  it('keeps separate budgets per endpoint in Redis too', async () => {
    const address = uniqueAddress();
    await statuses(6, () => login(first, { email: uniqueEmail(), password: WRONG }, address));
    expectRateLimited(await login(second, { email: uniqueEmail(), password: WRONG }, address));
    const forgot = () => postFrom(second, '/api/auth/forgot-password', { email: uniqueEmail() }, address);
    expect(await statuses(5, forgot)).toEqual(repeat(200, 5));
    expectRateLimited(await forgot());
  });
});

describe('rate limits when Redis does not answer', () => {
  it('counts in process instead: requests are served, limits still hold, one warning is logged', async () => {
    const logger = new RecordingLogger();
    // Nothing listens on port 1: every Redis command fails at once.
    const app = await createTestApp({ env: { ...ENV, REDIS_URL: 'redis://127.0.0.1:1' }, logger });
    try {
      const address = uniqueAddress();
      const sent = await statuses(5, () => login(app, { email: uniqueEmail(), password: WRONG }, address));
      expect(sent).toEqual(repeat(401, 5));
      expectRateLimited(await login(app, { email: uniqueEmail(), password: WRONG }, address));
      expect((await login(app, { email: uniqueEmail(), password: WRONG }, uniqueAddress())).status).toBe(401);
      const warnings = logger.lines.filter((line) => line.includes('Redis unavailable for rate limits'));
      expect(warnings).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
