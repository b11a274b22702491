import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loginTokens, logout, me, refresh, registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { TEST_REDIS_URL, useRedis } from '../support/redis.js';

/** Two instances of the service on one database and one Redis, as behind a load balancer. */
describe('two instances sharing the database and Redis', () => {
  let first: NestFastifyApplication;
  let second: NestFastifyApplication;

  const redis = useRedis();
  const fixture = useTestApp({ env: { REDIS_URL: TEST_REDIS_URL, DB_POOL_SIZE: '4' }, instances: 2 });
  beforeAll(() => {
    [first, second] = fixture.apps;
  });
  /** The user's version counter in Redis, which every instance reads before trusting its cache. */
  const versionOf = async (userId: string) => Number(await redis.client.get(`authz:v:user:${userId}`));

  it('accepts a token issued by one instance on the other', async () => {
    const user = await registerUser(first);
    const res = await me(second, user.tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(user.id);
  });

  it('refuses the access token on the other instance on the very next request after logout', async () => {
    const user = await registerUser(first);
    expect((await me(second, user.tokens.access_token)).status).toBe(200);
    const before = await versionOf(user.id);
    expect((await logout(first, user.tokens.access_token)).status).toBe(200);
    // Published through Redis, where the other instance reads it.
    expect(await versionOf(user.id)).toBeGreaterThan(before);
    const res = await me(second, user.tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
    expect((await refresh(second, user.tokens.refresh_token)).status).toBe(401);
  });

  it('detects refresh-token reuse across instances and revokes the session everywhere', async () => {
    const user = await registerUser(first);
    const tokens = await loginTokens(first, user);
    const rotated = await refresh(first, tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const before = await versionOf(user.id);
    const replay = await refresh(second, tokens.refresh_token);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('REFRESH_TOKEN_REUSED');
    expect(await versionOf(user.id)).toBeGreaterThan(before);

    for (const app of [first, second]) {
      expect((await me(app, rotated.body.data.access_token)).status).toBe(401);
    }
    expect((await refresh(first, rotated.body.data.refresh_token)).status).toBe(401);
  });
});
