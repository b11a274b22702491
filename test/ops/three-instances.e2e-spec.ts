import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registrationBody } from '../support/auth-factory.js';
import { callerWithPermissions, roleWithPermissions } from '../support/rbac-factory.js';
import { RoundRobinProxy } from '../support/round-robin-proxy.js';
import { useTestApp } from '../support/fixture.js';
import { TEST_REDIS_URL, useRedis } from '../support/redis.js';

/**
 * The recipe of docs/scaling.md, tested: three instances on one database and one Redis behind a
 * round-robin proxy. Each step of one person's session lands on another instance, and every rule
 * holds as if there were one: tokens, rotation, a role change seen at once, logout everywhere.
 */
describe('three instances behind a round-robin proxy', () => {
  const redis = useRedis();
  const fixture = useTestApp({
    env: { REDIS_URL: TEST_REDIS_URL, DB_POOL_SIZE: '3', TRUST_PROXY: '1' },
    instances: 3,
    listen: true,
  });
  let instances: NestFastifyApplication[];
  let proxy: RoundRobinProxy;
  let db: DataSource;

  beforeAll(async () => {
    ({ apps: instances, db } = fixture);
    proxy = await RoundRobinProxy.start(await Promise.all(instances.map((app) => app.getUrl())));
  });

  afterAll(async () => {
    await proxy.stop();
  });

  /** One request through the proxy; returns the answer and the instance that served it. */
  const through = () => request(proxy.url);
  const servedBy = (res: request.Response) => Number(res.headers['x-served-by']);
  /** Reads the profile until `instance` is next in turn: the session must hold on each one passed. */
  const checkProfileUntilNext = async (bearer: string, instance: number) => {
    while (proxy.upcoming !== instance)
      expect((await through().get('/api/auth/me').set('authorization', bearer)).status).toBe(200);
  };

  it('keeps every rule across instances: login, refresh, a role change and logout each on another one', async () => {
    const admin = await callerWithPermissions(instances[0]!, db, ['users.edit', 'users.view', 'contents.create']);
    const writers = await roleWithPermissions(db, ['contents.create'], 'writers');
    const body = registrationBody();
    const served: number[] = [];

    const registered = await through().post('/api/auth/register').send(body);
    expect(registered.status).toBe(201);
    served.push(servedBy(registered));
    const userId: string = registered.body.data.user.id;

    const login = await through().post('/api/auth/login').send({ email: body.email, password: body.password });
    expect(login.status).toBe(200);
    const loginOn = servedBy(login);
    served.push(loginOn);

    const rotated = await through().post('/api/auth/refresh').send({ refresh_token: login.body.data.refresh_token });
    expect(rotated.status).toBe(200);
    const refreshOn = servedBy(rotated);
    served.push(refreshOn);
    const access: string = rotated.body.data.access_token;
    const bearer = `Bearer ${access}`;

    // Not allowed yet, on whichever instance.
    const refused = await through().post('/api/contents').set('authorization', bearer).send({ title: 't', body: 'b' });
    expect(refused.status).toBe(403);
    served.push(servedBy(refused));

    // The old refresh token was rotated away on another instance: replaying it is reuse.
    // (Checked on a second session, so this one lives on.)
    const second = await through().post('/api/auth/login').send({ email: body.email, password: body.password });
    served.push(servedBy(second));
    const secondRotated = await through()
      .post('/api/auth/refresh')
      .send({ refresh_token: second.body.data.refresh_token });
    served.push(servedBy(secondRotated));
    const replay = await through().post('/api/auth/refresh').send({ refresh_token: second.body.data.refresh_token });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('REFRESH_TOKEN_REUSED');
    served.push(servedBy(replay));

    const third = [0, 1, 2].find((i) => i !== loginOn && i !== refreshOn)!;
    await checkProfileUntilNext(bearer, third);
    const roleChange = await through()
      .post(`/api/admin/users/${userId}/roles`)
      .set('authorization', `Bearer ${admin.token}`)
      .send({ role_ids: [writers.id] });
    expect(roleChange.status).toBe(200);
    const roleChangeOn = servedBy(roleChange);
    served.push(roleChangeOn);
    // Published through Redis: the user's version counter there moved.
    const versionAfterGrant = Number(await redis.client.get(`authz:v:user:${userId}`));
    expect(versionAfterGrant).toBeGreaterThanOrEqual(1);

    // The grant counts at once on every instance, whatever each had cached.
    for (let i = 0; i < 3; i++) {
      const created = await through()
        .post('/api/contents')
        .set('authorization', bearer)
        .send({ title: `t${i}`, body: 'b' });
      expect(created.status).toBe(201);
      served.push(servedBy(created));
    }

    await checkProfileUntilNext(bearer, third);
    const logout = await through().post('/api/auth/logout').set('authorization', bearer);
    expect(logout.status).toBe(200);
    const logoutOn = servedBy(logout);
    served.push(logoutOn);
    expect(Number(await redis.client.get(`authz:v:user:${userId}`))).toBeGreaterThan(versionAfterGrant);

    // Logged out everywhere, on the very next request of each instance.
    for (let i = 0; i < 3; i++) {
      const after = await through().get('/api/auth/me').set('authorization', bearer);
      expect(after.status).toBe(401);
      served.push(servedBy(after));
    }
    const refreshAfter = await through()
      .post('/api/auth/refresh')
      .send({ refresh_token: rotated.body.data.refresh_token });
    expect(refreshAfter.status).toBe(401);

    expect(new Set([loginOn, refreshOn, roleChangeOn]).size).toBe(3);
    expect(logoutOn).toBe(roleChangeOn);
    expect(new Set(served)).toEqual(new Set([0, 1, 2]));
  });
});
