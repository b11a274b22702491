import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { login, loginTokens, logout, refresh, registerUser, TEST_PASSWORD } from '../support/auth-factory.js';
import { callerWithPermissions } from '../support/rbac-factory.js';
import { useTestApp } from '../support/fixture.js';

interface AuditRow {
  type: string;
  actor_id: string | null;
  target_type: string | null;
  target_id: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
  created_at: string;
}

describe('the audit trail', () => {
  const fixture = useTestApp();
  let app: NestFastifyApplication;
  let db: DataSource;
  beforeAll(() => void ({ app, db } = fixture));

  const eventsOf = async (userId: string): Promise<AuditRow[]> =>
    db.query(`SELECT * FROM audit_events WHERE actor_id = $1 OR target_id = $2 ORDER BY created_at, id`, [
      userId,
      userId,
    ]);

  it('records a full sign-in flow, with client address and agent, and no secret', async () => {
    const user = await registerUser(app);
    await login(app, { email: user.email, password: 'Wrong-Password-123' });
    const tokens = await loginTokens(app, user);
    const rotated = (await refresh(app, tokens.refresh_token)).body.data;
    await refresh(app, tokens.refresh_token); // replay
    const again = await loginTokens(app, user);
    await logout(app, again.access_token);
    await request(app.getHttpServer())
      .post('/api/auth/forgot-password')
      .set('user-agent', 'audit-test/1.0')
      .send({ email: user.email });

    const events = await eventsOf(user.id);
    const types = events.map((event) => event.type);
    for (const expected of [
      'register',
      'login.failure',
      'login.success',
      'refresh',
      'refresh.reuse',
      'logout',
      'password_reset.request',
    ]) {
      expect(types).toContain(expected);
    }
    const forgot = events.find((event) => event.type === 'password_reset.request')!;
    expect(forgot.ip).toBeTruthy();
    expect(forgot.user_agent).toBe('audit-test/1.0');

    const secrets = [
      user.password,
      TEST_PASSWORD,
      tokens.access_token,
      tokens.refresh_token,
      rotated.refresh_token,
      again.access_token,
    ];
    const [{ hash }] = await db.query(`SELECT password_hash AS hash FROM users WHERE id = $1`, [user.id]);
    const stored = JSON.stringify(events);
    for (const secret of [...secrets, hash]) expect(stored).not.toContain(secret);
  });

  it('records role, permission, user and settings changes with the actor', async () => {
    const admin = await callerWithPermissions(app, db, [
      'roles.create',
      'roles.edit',
      'roles.delete',
      'users.edit',
      'settings.view',
    ]);
    const role = await request(app.getHttpServer())
      .post('/api/admin/roles')
      .set('authorization', `Bearer ${admin.token}`)
      .send({ name: `audited-${randomUUID().slice(0, 8)}` });
    await request(app.getHttpServer())
      .delete(`/api/admin/roles/${role.body.data.id}`)
      .set('authorization', `Bearer ${admin.token}`);
    const target = await registerUser(app);
    await request(app.getHttpServer())
      .put(`/api/admin/users/${target.id}`)
      .set('authorization', `Bearer ${admin.token}`)
      .send({ name: 'Renamed' });

    const events: AuditRow[] = await db.query(
      `SELECT * FROM audit_events WHERE actor_id = $1 ORDER BY created_at, id`,
      [admin.id],
    );
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['role.create', 'role.delete', 'user.update']),
    );
    const created = events.find((event) => event.type === 'role.create')!;
    expect(created).toMatchObject({ target_type: 'role', target_id: role.body.data.id });
  });

  describe('GET /api/admin/audit-events', () => {
    it('is refused without a token (401) and without audit.view (403)', async () => {
      expect((await request(app.getHttpServer()).get('/api/admin/audit-events')).status).toBe(401);
      const plain = await callerWithPermissions(app, db, ['users.view']);
      const res = await request(app.getHttpServer())
        .get('/api/admin/audit-events')
        .set('authorization', `Bearer ${plain.token}`);
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain('audit.view');
    });

    it('lists newest first, paginated, filtered by user and type', async () => {
      const auditor = await callerWithPermissions(app, db, ['audit.view']);
      const user = await registerUser(app);
      await login(app, { email: user.email, password: 'Wrong-Password-123' });
      await loginTokens(app, user);
      const get = (query: string) =>
        request(app.getHttpServer())
          .get(`/api/admin/audit-events?${query}`)
          .set('authorization', `Bearer ${auditor.token}`);

      const mine = await get(`user_id=${user.id}`);
      expect(mine.status).toBe(200);
      expect(mine.body.data).toMatchObject({ page: 1, limit: 20 });
      const types = mine.body.data.items.map((event: { type: string }) => event.type);
      expect(types[0]).toBe('login.success');
      expect(types).toEqual(expect.arrayContaining(['register', 'login.failure', 'login.success']));
      expect(mine.body.data.total).toBe(mine.body.data.items.length);

      const failures = await get(`user_id=${user.id}&type=login.failure`);
      expect(failures.body.data.items).toHaveLength(1);
      expect(failures.body.data.items[0]).toMatchObject({ type: 'login.failure', actor_id: user.id });

      const page = await get(`user_id=${user.id}&limit=1&page=2`);
      expect(page.body.data.items).toHaveLength(1);
      expect(page.body.data.items[0].type).toBe(types[1]);

      for (const bad of ['user_id=nope', 'limit=0', 'page=-1', 'sort=asc']) expect((await get(bad)).status).toBe(400);
    });
  });
});
