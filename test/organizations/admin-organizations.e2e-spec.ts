import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithOnlyPermissions, type Caller } from '../support/rbac-factory.js';

/** Every organization for instance administrators: `GET /api/admin/organizations` (organizations.view). */
describe('the administrators’ list of every organization', () => {
  const fixture = useTestApp();
  let app: NestFastifyApplication;
  let db: DataSource;
  let viewer: Caller;

  beforeAll(async () => {
    ({ app, db } = fixture);
    viewer = await callerWithOnlyPermissions(app, db, ['organizations.view']);
  });

  /** An organization created through the API by a person who is not the viewer. */
  async function organizationNamed(name: string, slug: string, creator: Caller): Promise<string> {
    const res = await call(app, 'post', '/api/organizations', creator.token, { slug, name });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  }

  it('lists organizations the administrator does not belong to, newest first, in pages, and searches slug and name', async () => {
    const tag = randomUUID().slice(0, 8);
    const creator = await callerWithOnlyPermissions(app, db, ['organizations.create']);
    const first = await organizationNamed(`Harbour ${tag} One`, `first-${tag}`, creator);
    const second = await organizationNamed('Second Harbour', `second-${tag}`, creator);
    const third = await organizationNamed('Third Harbour', `third-${tag}`, creator);

    const bySlugOrName = await call(app, 'get', `/api/admin/organizations?search=${tag}&limit=2`, viewer.token);
    expect(bySlugOrName.status).toBe(200);
    expect(bySlugOrName.body.data).toMatchObject({ total: 3, page: 1, limit: 2 });
    expect(bySlugOrName.body.data.items.map((row: { id: string }) => row.id)).toEqual([third, second]);
    expect(bySlugOrName.body.data.items[0]).toEqual({
      id: third,
      slug: `third-${tag}`,
      name: 'Third Harbour',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const next = await call(app, 'get', `/api/admin/organizations?search=${tag}&limit=2&page=2`, viewer.token);
    expect(next.body.data.items.map((row: { id: string }) => row.id)).toEqual([first]);

    const byName = await call(app, 'get', `/api/admin/organizations?search=harbour%20${tag}`, viewer.token);
    expect(byName.body.data.items.map((row: { id: string }) => row.id)).toEqual([first]);
    // LIKE's wildcards are matched literally.
    const wildcard = await call(app, 'get', `/api/admin/organizations?search=${tag.slice(0, 4)}%25_`, viewer.token);
    expect(wildcard.body.data.total).toBe(0);

    const all = await call(app, 'get', '/api/admin/organizations?limit=100', viewer.token);
    expect(all.body.data.total).toBeGreaterThanOrEqual(3);
  });

  it('refuses a caller without organizations.view, and an unknown query field', async () => {
    const member = await callerWithOnlyPermissions(app, db, ['organizations.create']);
    await organizationNamed('Own', `own-${randomUUID().slice(0, 8)}`, member);
    const refused = await call(app, 'get', '/api/admin/organizations', member.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    const unknown = await call(app, 'get', '/api/admin/organizations?sort=name', viewer.token);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('VALIDATION_FAILED');
  });
});
