import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { AuditRetention } from '../../src/audit/audit-retention.service.js';
import { registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { createTestApp } from '../support/test-app.js';

/** The deletion is table-wide: the file's own database holds only this file's events. */
describe('audit retention', () => {
  const fixture = useTestApp({ env: { AUDIT_RETENTION_DAYS: '30' } });
  let db: DataSource;
  let app: NestFastifyApplication;
  beforeAll(() => void ({ db, app } = fixture));

  const insertEvents = (count: number, ageDays: number, type: string) =>
    db.query(
      `INSERT INTO audit_events (type, created_at)
       SELECT $1, now() - make_interval(days => $2) - i * interval '1 second' FROM generate_series(1, $3::int) AS i`,
      [type, ageDays, count],
    );

  it('deletes events older than AUDIT_RETENTION_DAYS in batches and keeps the others', async () => {
    await db.query(`DELETE FROM audit_events`);
    await insertEvents(12, 31, 'retention.old');
    await insertEvents(3, 29, 'retention.recent');
    await insertEvents(1, 0, 'retention.today');

    const result = await app.get(AuditRetention).deleteExpired(5);
    expect(result).toEqual({ deleted: 12, batches: 3 });

    const rows: { type: string; n: number }[] = await db.query(
      `SELECT type, count(*)::int AS n FROM audit_events WHERE type LIKE 'retention.%' GROUP BY type ORDER BY type`,
    );
    expect(rows).toEqual([
      { type: 'retention.recent', n: 3 },
      { type: 'retention.today', n: 1 },
    ]);

    // Nothing left to delete: one empty batch, no error.
    expect(await app.get(AuditRetention).deleteExpired(5)).toEqual({ deleted: 0, batches: 0 });
  });

  it('lets two instances delete at once without deleting a row twice or failing', async () => {
    await db.query(`DELETE FROM audit_events`);
    await insertEvents(40, 400, 'retention.old');
    const other = await createTestApp({ env: { AUDIT_RETENTION_DAYS: '30' } });
    try {
      const [a, b] = await Promise.all([
        app.get(AuditRetention).deleteExpired(7),
        other.get(AuditRetention).deleteExpired(7),
      ]);
      expect(a.deleted + b.deleted).toBe(40);
    } finally {
      await other.close();
    }
    expect((await db.query(`SELECT count(*)::int AS n FROM audit_events WHERE type = 'retention.old'`))[0].n).toBe(0);
  });

  it('stores a user agent of at most 256 characters', async () => {
    const user = await registerUser(app);
    const agent = `Agent/${'x'.repeat(300)}-é-${'y'.repeat(700)}`;
    const res = await request(app.getHttpServer())
      .post('/api/auth/login')
      .set('user-agent', agent)
      .send({ email: user.email, password: 'Not-The-Password-1' });
    expect(res.status).toBe(401);
    const [row] = await db.query(`SELECT user_agent FROM audit_events WHERE type = 'login.failure' AND actor_id = $1`, [
      user.id,
    ]);
    expect(row.user_agent).toBe(agent.slice(0, 256));
  });
});
