import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { me, registerUser } from '../support/auth-factory.js';
import { call, callerWithPermissions } from '../support/rbac-factory.js';
import { useTestApp } from '../support/fixture.js';

describe('small HTTP fixes', () => {
  let app: NestFastifyApplication;
  let db: DataSource;

  const fixture = useTestApp();
  beforeAll(() => void ({ app, db } = fixture));

  it('logs out with content-type: application/json and an empty body', async () => {
    const user = await registerUser(app);
    const res = await request(app.getHttpServer())
      .post('/api/auth/logout')
      .set('authorization', `Bearer ${user.tokens.access_token}`)
      .set('content-type', 'application/json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: {} });
    expect((await me(app, user.tokens.access_token)).status).toBe(401);
  });

  it('still refuses an empty JSON body where a body is expected', async () => {
    const res = await request(app.getHttpServer()).post('/api/auth/login').set('content-type', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'INVALID_JSON', message: 'Request body is empty but declared as JSON.' });
  });

  it('reports each validation detail once', async () => {
    const res = await request(app.getHttpServer())
      .post('/api/auth/login')
      .send({ email: ['a'], password: null });
    expect(res.status).toBe(400);
    const details = (res.body.error.details as { field: string; message: string }[]).map(
      (d) => `${d.field}: ${d.message}`,
    );
    expect(details.length).toBeGreaterThan(0);
    expect(new Set(details).size).toBe(details.length);
  });

  describe('role names', () => {
    let token: string;

    beforeAll(async () => {
      token = (await callerWithPermissions(app, db, ['roles.create', 'roles.edit', 'roles.view'])).token;
    });

    const suffix = () => Math.random().toString(36).slice(2, 8);

    it('are trimmed', async () => {
      const name = `trimmed-${suffix()}`;
      const res = await call(app, 'post', '/api/admin/roles', token, { name: `  ${name}\t ` });
      expect(res.status).toBe(201);
      expect(res.body.data.name).toBe(name);
    });

    it('take 1 to 64 characters', async () => {
      expect(
        (await call(app, 'post', '/api/admin/roles', token, { name: `r${suffix()}`.padEnd(64, 'x') })).status,
      ).toBe(201);
      for (const name of ['', '   ', 'x'.repeat(65)]) {
        const res = await call(app, 'post', '/api/admin/roles', token, { name });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
        expect(res.body.error.details).toEqual(
          expect.arrayContaining([{ field: 'name', message: 'name must be 1 to 64 characters' }]),
        );
      }
    });

    it('hold no control characters, on create and on rename', async () => {
      for (const name of [`bad\u0007${suffix()}`, `bad\n${suffix()}`, `bad\u202e${suffix()}`]) {
        const res = await call(app, 'post', '/api/admin/roles', token, { name });
        expect(res.status).toBe(400);
        expect(res.body.error.details).toEqual([
          { field: 'name', message: 'name must not contain control characters or bidirectional overrides' },
        ]);
      }
      const created = await call(app, 'post', '/api/admin/roles', token, { name: `ok-${suffix()}` });
      const renamed = await call(app, 'put', `/api/admin/roles/${created.body.data.id}`, token, { name: 'tab\there' });
      expect(renamed.status).toBe(400);
    });
  });
});
