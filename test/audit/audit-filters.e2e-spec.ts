import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { loginTokens, registerUser } from '../support/auth-factory.js';
import { callerWithPermissions, type Caller } from '../support/rbac-factory.js';
import { useTestApp } from '../support/fixture.js';

interface Listed {
  type: string;
  actor_id: string | null;
  target_id: string | null;
  created_at: string;
}

/** The audit list's filters by actor, target and time, as the admin console uses them. */
describe('GET /api/admin/audit-events filters', () => {
  const fixture = useTestApp();
  let app: NestFastifyApplication;
  let db: DataSource;
  let auditor: Caller;
  beforeAll(async () => {
    ({ app, db } = fixture);
    auditor = await callerWithPermissions(app, db, ['audit.view']);
  });

  const get = (query: string) =>
    request(app.getHttpServer())
      .get(`/api/admin/audit-events?${query}`)
      .set('authorization', `Bearer ${auditor.token}`);

  it('narrows by actor, by target and by a time window, each filter and all together', async () => {
    const user = await registerUser(app);
    await loginTokens(app, user);
    // An event done to the user by someone else: the auditor's row in user_roles is not one;
    // a role given through the API is (target = the user, actor = the admin).
    const admin = await callerWithPermissions(app, db, ['users.edit', 'roles.view']);
    const [{ id: roleId }] = await db.query(`SELECT id FROM roles WHERE name = 'user'`);
    const given = await request(app.getHttpServer())
      .put(`/api/admin/users/${user.id}/roles`)
      .set('authorization', `Bearer ${admin.token}`)
      .send({ role_ids: [roleId] });
    expect(given.status).toBe(200);

    const byActor = await get(`actor_id=${user.id}`);
    expect(byActor.status).toBe(200);
    const acted: Listed[] = byActor.body.data.items;
    expect(acted.length).toBeGreaterThan(0);
    expect(acted.every((event) => event.actor_id === user.id)).toBe(true);

    const byTarget = await get(`target_id=${user.id}`);
    const targeted: Listed[] = byTarget.body.data.items;
    expect(targeted.map((event) => event.type)).toContain('user.roles');
    expect(targeted.every((event) => event.target_id === user.id)).toBe(true);

    const both = await get(`actor_id=${admin.id}&target_id=${user.id}`);
    expect(both.body.data.items.map((event: Listed) => event.type)).toEqual(['user.roles']);

    const all: Listed[] = (await get(`user_id=${user.id}&limit=100`)).body.data.items;
    const oldest = all.at(-1)!.created_at;
    const newest = all[0].created_at;
    const window = await get(`user_id=${user.id}&from=${encodeURIComponent(oldest)}&to=${encodeURIComponent(oldest)}`);
    expect(window.status).toBe(200);
    expect(window.body.data.items.every((event: Listed) => event.created_at === oldest)).toBe(true);
    expect(window.body.data.total).toBeGreaterThan(0);
    const after = await get(
      `user_id=${user.id}&from=${encodeURIComponent(new Date(Date.parse(newest) + 1).toISOString())}`,
    );
    expect(after.body.data).toMatchObject({ items: [], total: 0 });
    const before = await get(
      `user_id=${user.id}&to=${encodeURIComponent(new Date(Date.parse(oldest) - 1).toISOString())}`,
    );
    expect(before.body.data).toMatchObject({ items: [], total: 0 });
  });

  it('refuses a malformed filter with 400', async () => {
    for (const bad of ['actor_id=nope', 'from=yesterday', 'to=2026-13-40', `target_id=${'x'.repeat(256)}`]) {
      const res = await get(bad);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('the OpenAPI document of GET /api/admin/audit-events', () => {
  const fixture = useTestApp();

  it('lists every filter and the page as query parameters', async () => {
    const res = await request(fixture.app.getHttpServer()).get('/docs/openapi.json');
    expect(res.status).toBe(200);
    const parameters: { name: string; in: string; required: boolean }[] =
      res.body.paths['/api/admin/audit-events'].get.parameters;
    expect(
      parameters
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => parameter.name)
        .sort(),
    ).toEqual(['actor_id', 'from', 'limit', 'page', 'target_id', 'to', 'type', 'user_id']);
    expect(parameters.every((parameter) => parameter.required === false)).toBe(true);
  });
});
