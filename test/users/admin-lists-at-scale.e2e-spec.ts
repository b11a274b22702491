import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request, { type Response } from 'supertest';
import type { DataSource } from 'typeorm';
import { adminUsersPageQuery } from '../../src/users/admin-users.repository.js';
import { loginTokens, registerUser, sleep } from '../support/auth-factory.js';
import { insertBulkUsers } from '../support/bulk-users.js';
import { useTestApp } from '../support/fixture.js';
import { callerWithPermissions, type Caller } from '../support/rbac-factory.js';

const BULK_USERS = 300_000;
const onServer = Boolean(process.env.TEST_SERVER_URL);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

/**
 * GET /api/admin/users over 300,000 users: a page and a search answer with the usual shape, the
 * page is found through an index before roles are joined (EXPLAIN, on a PostgreSQL server), and
 * one caller's flood of list requests is capped without starving anyone else.
 */
describe('admin lists at scale', () => {
  const fixture = useTestApp({ listen: true });
  let db: DataSource;
  let app: NestFastifyApplication;
  let admin: Caller;
  let baseUrl: string;

  beforeAll(async () => {
    ({ app, db } = fixture);
    await insertBulkUsers(db, BULK_USERS, { prefix: 'scale', roleNames: ['user'], roleEvery: 5 });
    baseUrl = await app.getUrl();
    admin = await callerWithPermissions(app, db, ['users.view']);
  }, 300_000);

  const list = (query: string, token = admin.token): Promise<Response> =>
    request(baseUrl).get(`/api/admin/users${query}`).set('authorization', `Bearer ${token}`);

  it("answers a page in the usual shape, in creation order, with each user's roles", async () => {
    const res = await list('?page=3&limit=20');
    expect(res.status).toBe(200);
    const [{ total }] = await db.query(`SELECT count(*)::int AS total FROM users`);
    expect(res.body.data).toEqual({ items: expect.any(Array), total, page: 3, limit: 20 });
    const items = res.body.data.items as Record<string, unknown>[];
    expect(items).toHaveLength(20);
    expect(Object.keys(items[0]).sort()).toEqual([
      'created_at',
      'disabled',
      'disabled_at',
      'disabled_reason',
      'disabled_until',
      'email',
      'email_verified',
      'id',
      'mobile',
      'name',
      'roles',
      'updated_at',
    ]);
    // Users 41 to 60 of the fixture: the 45th, 50th, 55th and 60th hold `user`.
    expect(items.map((item) => item.email)).toEqual(
      Array.from({ length: 20 }, (_, i) => `scale-${41 + i}@bulk.example.com`),
    );
    for (const item of items) {
      const n = Number(/-(\d+)@/.exec(String(item.email))![1]);
      expect(item.roles).toEqual(n % 5 === 0 ? [{ id: expect.any(String), name: 'user' }] : []);
    }
  });

  it('finds users by a fragment of their email or name, with the matching total', async () => {
    const byEmail = await list('?search=SCALE-123456@');
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.data.total).toBe(1);
    expect(byEmail.body.data.items.map((item: { email: string }) => item.email)).toEqual([
      'scale-123456@bulk.example.com',
    ]);

    const byName = await list(`?search=${encodeURIComponent('bulk user scale 29999')}&limit=100`);
    expect(byName.status).toBe(200);
    // 29999 and 299990 to 299999.
    expect(byName.body.data.total).toBe(11);
    expect(byName.body.data.items).toHaveLength(11);

    const nothing = await list('?search=no-such-user-anywhere');
    expect(nothing.body.data).toEqual({ items: [], total: 0, page: 1, limit: 20 });
  });

  it('takes a page through the creation-order index and joins roles for that page only', async () => {
    const page = await list('?page=500&limit=50');
    expect(page.status).toBe(200);
    expect(page.body.data.items).toHaveLength(50);
    if (!onServer) return; // The plan is PostgreSQL's; the embedded database answered the same page above.

    const explain = async (search: string | undefined, limit: number, offset: number) => {
      const query = adminUsersPageQuery(search, limit, offset);
      const [row] = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${query.sql}`, query.params);
      return nodesOf((row['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan);
    };
    const paged = await explain(undefined, 50, 500 * 50);
    expect(paged.some((node) => node['Index Name'] === 'IDX_users_created_at_id')).toBe(true);
    expect(paged.filter((node) => node['Relation Name'] === 'users' && node['Node Type'] === 'Seq Scan')).toEqual([]);
    // No aggregate reads more rows than a page's worth of role links.
    for (const aggregate of paged.filter((node) => node['Node Type'] === 'Aggregate')) {
      const input = (aggregate.Plans ?? []).reduce(
        (rows, child) => rows + (child['Actual Rows'] ?? 0) * (child['Actual Loops'] ?? 1),
        0,
      );
      expect(input).toBeLessThan(1_000);
    }

    const searched = await explain('scale-123456@', 20, 0);
    expect(searched.some((node) => node['Index Name'] === 'IDX_users_email_trgm')).toBe(true);
    expect(searched.filter((node) => node['Relation Name'] === 'users' && node['Node Type'] === 'Seq Scan')).toEqual(
      [],
    );
  });

  it("caps one caller's concurrent list requests, while others sign in and are served", async () => {
    const other = await registerUser(app);
    const requests = Array.from({ length: 75 }, (_, i) =>
      list(i % 3 === 0 ? `?search=scale-${1000 + i}&limit=50` : `?page=${1 + i * 37}&limit=100`),
    );
    const [me, signIn, ...answers] = await Promise.all([
      request(baseUrl).get('/api/auth/me').set('authorization', `Bearer ${other.tokens.access_token}`),
      request(baseUrl).post('/api/auth/login').send({ email: other.email, password: other.password }),
      ...requests,
    ]);
    expect(me.status).toBe(200);
    expect(signIn.status).toBe(200);

    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(4);
    const refused = answers.filter((res) => res.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const res of refused) {
      expect(res.body).toEqual({ success: false, error: { code: 'RATE_LIMITED', message: expect.any(String) } });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }

    // The cap counts requests in flight, not requests made: once they are answered, the caller is served again.
    expect((await list('?limit=5')).status).toBe(200);
    const again = await loginTokens(app, other);
    expect(
      (await request(baseUrl).get('/api/auth/me').set('authorization', `Bearer ${again.access_token}`)).status,
    ).toBe(200);
  });

  it("counts the cap per caller: another administrator is not refused for the first one's flood", async () => {
    const second = await callerWithPermissions(app, db, ['users.view']);
    const flood = Array.from({ length: 30 }, () => list('?limit=100'));
    const mine = await list('?limit=10', second.token);
    const answers = await Promise.all(flood);
    expect(mine.status).toBe(200);
    expect(answers.filter((res) => res.status >= 500)).toEqual([]);
  });

  it('caps the audit event list the same way, counting requests held up in the database', async () => {
    const auditor = await callerWithPermissions(app, db, ['audit.view']);
    const audit = () =>
      request(baseUrl).get('/api/admin/audit-events?limit=5').set('authorization', `Bearer ${auditor.token}`);
    expect((await audit()).status).toBe(200);

    // The audit table is locked, so the first requests stay in flight until it is released.
    const runner = db.createQueryRunner();
    await runner.connect();
    let answers: Response[];
    try {
      await runner.startTransaction();
      await runner.query(`LOCK TABLE audit_events IN ACCESS EXCLUSIVE MODE`);
      const pending = Promise.all(Array.from({ length: 12 }, () => audit()));
      await sleep(1_500);
      await runner.commitTransaction();
      answers = await pending;
    } finally {
      await runner.release();
    }
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(4).fill(200), ...Array(8).fill(429)]);
  });
});
