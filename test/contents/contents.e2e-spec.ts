import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { Permissions } from '@auth-rbac/nest-guard';
import { call, callerWithPermissions, type Caller } from '../support/rbac-factory.js';
import { useTestApp } from '../support/fixture.js';

type Method = 'get' | 'post' | 'put' | 'delete';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('contents API', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  /** Holds every contents.* permission. */
  let author: Caller;
  /** Holds contents.view only. */
  let reader: Caller;
  /** Holds no permission at all. */
  let nobody: Caller;

  const fixture = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '10000' } });
  beforeAll(async () => {
    ({ app, db } = fixture);
    author = await callerWithPermissions(app, db, [
      Permissions.ContentsView,
      Permissions.ContentsCreate,
      Permissions.ContentsEdit,
      Permissions.ContentsDelete,
    ]);
    reader = await callerWithPermissions(app, db, [Permissions.ContentsView]);
    nobody = await callerWithPermissions(app, db, []);
  });

  const createContent = async (body: object = { title: `Title ${randomUUID()}`, body: 'Some text.' }) => {
    const res = await call(app, 'post', '/api/contents', author.token, body);
    expect(res.status).toBe(201);
    return res.body.data as {
      id: string;
      title: string;
      body: string;
      author_id: string | null;
      created_at: string;
      updated_at: string;
    };
  };

  describe('guards', () => {
    const ROUTES: {
      name: string;
      method: Method;
      path: (id: string) => string;
      body?: object;
      permission: string;
      ok: number;
    }[] = [
      { name: 'GET /contents', method: 'get', path: () => '/api/contents', permission: 'contents.view', ok: 200 },
      {
        name: 'POST /contents',
        method: 'post',
        path: () => '/api/contents',
        body: { title: 'T', body: 'B' },
        permission: 'contents.create',
        ok: 201,
      },
      {
        name: 'GET /contents/:id',
        method: 'get',
        path: (id) => `/api/contents/${id}`,
        permission: 'contents.view',
        ok: 200,
      },
      {
        name: 'PUT /contents/:id',
        method: 'put',
        path: (id) => `/api/contents/${id}`,
        body: { title: 'New' },
        permission: 'contents.edit',
        ok: 200,
      },
      {
        name: 'DELETE /contents/:id',
        method: 'delete',
        path: (id) => `/api/contents/${id}`,
        permission: 'contents.delete',
        ok: 200,
      },
    ];

    it.each(ROUTES)('$name refuses a request without a token (401 UNAUTHENTICATED)', async (route) => {
      const { id } = await createContent();
      const res = await call(app, route.method, route.path(id), undefined, route.body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
    });

    it.each(ROUTES)('$name refuses a caller without $permission (403 FORBIDDEN naming it)', async (route) => {
      const { id } = await createContent();
      // The reader holds contents.view, so the view routes are tried by a caller with nothing.
      const caller = route.permission === 'contents.view' ? nobody : reader;
      const res = await call(app, route.method, route.path(id), caller.token, route.body);
      expect(res.status).toBe(403);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toContain(route.permission);
      // Refused requests change nothing.
      expect((await call(app, 'get', `/api/contents/${id}`, reader.token)).status).toBe(200);
    });

    it.each(ROUTES)('$name serves a caller with $permission', async (route) => {
      const { id } = await createContent();
      const res = await call(app, route.method, route.path(id), author.token, route.body);
      expect(res.status).toBe(route.ok);
      expect(res.body.success).toBe(true);
    });

    it('lets a caller with contents.view only read', async () => {
      const { id } = await createContent();
      expect((await call(app, 'get', '/api/contents', reader.token)).status).toBe(200);
      expect((await call(app, 'get', `/api/contents/${id}`, reader.token)).status).toBe(200);
    });
  });

  describe('create and read', () => {
    it('creates a content authored by the caller and answers it with 201', async () => {
      const res = await call(app, 'post', '/api/contents', author.token, { title: '  Hello  ', body: 'First body.' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        data: {
          id: expect.stringMatching(UUID),
          title: 'Hello',
          body: 'First body.',
          author_id: author.id,
          created_at: expect.stringMatching(ISO_TIME),
          updated_at: expect.stringMatching(ISO_TIME),
        },
      });
      const fetched = await call(app, 'get', `/api/contents/${res.body.data.id}`, reader.token);
      expect(fetched.status).toBe(200);
      expect(fetched.body.data).toEqual(res.body.data);
    });

    it('accepts a title of 255 characters and a body of 10000', async () => {
      const created = await createContent({ title: 'x'.repeat(255), body: 'y'.repeat(10_000) });
      expect(created.title).toHaveLength(255);
      expect(created.body).toHaveLength(10_000);
    });

    it('lists contents newest first with the total', async () => {
      const older = await createContent();
      const newer = await createContent();
      const res = await call(app, 'get', '/api/contents?limit=100', reader.token);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ items: expect.any(Array), total: expect.any(Number), page: 1, limit: 100 });
      const [{ total }] = await db.query(`SELECT count(*)::int AS total FROM contents`);
      expect(res.body.data.total).toBeGreaterThanOrEqual(2);
      expect(res.body.data.total).toBeLessThanOrEqual(total);
      const ids = res.body.data.items.map((item: { id: string }) => item.id);
      expect(ids).toContain(newer.id);
      expect(ids).toContain(older.id);
      expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
      for (const item of res.body.data.items) {
        expect(Object.keys(item).sort()).toEqual(['author_id', 'body', 'created_at', 'id', 'title', 'updated_at']);
      }
      expect(res.body.data.items.find((item: { id: string }) => item.id === newer.id)).toEqual(newer);
    });

    it('pages the list with page and limit', async () => {
      await createContent();
      await createContent();
      await createContent();
      const first = await call(app, 'get', '/api/contents?page=1&limit=2', reader.token);
      const second = await call(app, 'get', '/api/contents?page=2&limit=2', reader.token);
      expect(first.status).toBe(200);
      expect(first.body.data.items).toHaveLength(2);
      expect(first.body.data).toMatchObject({ page: 1, limit: 2 });
      expect(second.body.data).toMatchObject({ page: 2, limit: 2 });
      expect(second.body.data.items.length).toBeGreaterThan(0);
      const firstIds = first.body.data.items.map((item: { id: string }) => item.id);
      for (const item of second.body.data.items) expect(firstIds).not.toContain(item.id);
      const beyond = await call(app, 'get', '/api/contents?page=100000&limit=100', reader.token);
      expect(beyond.status).toBe(200);
      expect(beyond.body.data.items).toEqual([]);
      expect(beyond.body.data.total).toBeGreaterThan(0);
    });

    it.each([['limit=0'], ['limit=101'], ['page=0'], ['page=100001'], ['page=abc'], ['limit=1.5'], ['sort=title']])(
      'refuses the query %s with 400 VALIDATION_FAILED',
      async (query) => {
        const res = await call(app, 'get', `/api/contents?${query}`, reader.token);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
      },
    );

    it('keeps a content when its author is deleted, with author_id null', async () => {
      const writer = await callerWithPermissions(app, db, [Permissions.ContentsCreate]);
      const res = await call(app, 'post', '/api/contents', writer.token, {
        title: 'Orphan',
        body: 'Outlives its author.',
      });
      expect(res.body.data.author_id).toBe(writer.id);
      await db.query(`DELETE FROM users WHERE id = $1`, [writer.id]);
      const fetched = await call(app, 'get', `/api/contents/${res.body.data.id}`, reader.token);
      expect(fetched.status).toBe(200);
      expect(fetched.body.data).toMatchObject({ title: 'Orphan', author_id: null });
    });
  });

  describe('update and delete', () => {
    it('changes only the fields given and moves updated_at', async () => {
      const created = await createContent({ title: 'Before', body: 'Unchanged body.' });
      const res = await call(app, 'put', `/api/contents/${created.id}`, author.token, { title: 'After' });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ ...created, title: 'After', updated_at: expect.stringMatching(ISO_TIME) });
      expect(Date.parse(res.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));

      const body = await call(app, 'put', `/api/contents/${created.id}`, author.token, { body: 'New body.' });
      expect(body.body.data).toMatchObject({ title: 'After', body: 'New body.', author_id: author.id });
      expect((await call(app, 'get', `/api/contents/${created.id}`, reader.token)).body.data).toEqual(body.body.data);
    });

    it('keeps the author when someone else edits', async () => {
      const created = await createContent();
      const editor = await callerWithPermissions(app, db, [Permissions.ContentsEdit]);
      const res = await call(app, 'put', `/api/contents/${created.id}`, editor.token, { body: 'Edited.' });
      expect(res.status).toBe(200);
      expect(res.body.data.author_id).toBe(author.id);
    });

    it('treats an empty body as a no-op that answers the content unchanged', async () => {
      const created = await createContent();
      const res = await call(app, 'put', `/api/contents/${created.id}`, author.token, {});
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(created);
    });

    it('deletes a content: 200 with an empty object, then it is gone', async () => {
      const created = await createContent();
      const res = await call(app, 'delete', `/api/contents/${created.id}`, author.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: {} });
      expect((await call(app, 'get', `/api/contents/${created.id}`, reader.token)).status).toBe(404);
      expect((await call(app, 'delete', `/api/contents/${created.id}`, author.token)).status).toBe(404);
    });
  });

  describe('unknown and malformed ids', () => {
    it.each<[Method, object | undefined]>([
      ['get', undefined],
      ['put', { title: 'X' }],
      ['put', {}],
      ['delete', undefined],
    ])('%s of an unknown id is 404 NOT_FOUND', async (method, body) => {
      const res = await call(app, method, `/api/contents/${randomUUID()}`, author.token, body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Content not found.' } });
    });

    it.each<[Method, string]>([
      ['get', 'not-a-uuid'],
      ['put', 'not-a-uuid'],
      ['delete', 'not-a-uuid'],
      ['get', '123'],
      ['get', `${randomUUID()}x`],
      ['get', "1'%20OR%20'1'='1"],
    ])('%s of the malformed id %s is 400 VALIDATION_FAILED', async (method, id) => {
      const res = await call(
        app,
        method,
        `/api/contents/${id}`,
        author.token,
        method === 'put' ? { title: 'X' } : undefined,
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details).toEqual([{ field: 'id', message: expect.any(String) }]);
    });
  });

  describe('bad bodies', () => {
    const CREATE_CASES: [string, object, string][] = [
      ['an unknown field', { title: 'T', body: 'B', author_id: randomUUID() }, 'author_id'],
      ['a missing title', { body: 'B' }, 'title'],
      ['a missing body', { title: 'T' }, 'body'],
      ['an empty title', { title: '', body: 'B' }, 'title'],
      ['a blank title', { title: '   ', body: 'B' }, 'title'],
      ['a title of 256 characters', { title: 'x'.repeat(256), body: 'B' }, 'title'],
      ['a body of 10001 characters', { title: 'T', body: 'y'.repeat(10_001) }, 'body'],
      ['a number as title', { title: 42, body: 'B' }, 'title'],
      ['an array as body', { title: 'T', body: ['B'] }, 'body'],
      ['null as title', { title: null, body: 'B' }, 'title'],
    ];

    it.each(CREATE_CASES)('POST refuses %s with 400 VALIDATION_FAILED', async (_case, body, field) => {
      const [{ count: before }] = await db.query(`SELECT count(*)::int AS count FROM contents WHERE author_id = $1`, [
        author.id,
      ]);
      const res = await call(app, 'post', '/api/contents', author.token, body);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
      const [{ count: after }] = await db.query(`SELECT count(*)::int AS count FROM contents WHERE author_id = $1`, [
        author.id,
      ]);
      expect(after).toBe(before);
    });

    const UPDATE_CASES: [string, object, string][] = [
      ['an unknown field', { title: 'T', author_id: randomUUID() }, 'author_id'],
      ['an empty title', { title: '' }, 'title'],
      ['a title of 256 characters', { title: 'x'.repeat(256) }, 'title'],
      ['a body of 10001 characters', { body: 'y'.repeat(10_001) }, 'body'],
      ['a boolean as title', { title: true }, 'title'],
      ['a number as body', { body: 7 }, 'body'],
      ['null as title', { title: null }, 'title'],
      ['null as body', { body: null }, 'body'],
    ];

    it.each(UPDATE_CASES)('PUT refuses %s with 400 VALIDATION_FAILED, changing nothing', async (_case, body, field) => {
      const created = await createContent();
      const res = await call(app, 'put', `/api/contents/${created.id}`, author.token, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
      expect((await call(app, 'get', `/api/contents/${created.id}`, reader.token)).body.data).toEqual(created);
    });

    it('refuses a body that is not a JSON object', async () => {
      const res = await request(app.getHttpServer())
        .post('/api/contents')
        .set('authorization', `Bearer ${author.token}`)
        .set('content-type', 'application/json')
        .send('["T", "B"]');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    });
  });
});
