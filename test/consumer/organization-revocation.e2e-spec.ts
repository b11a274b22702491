import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { registerUser, sleep } from '../support/auth-factory.js';
import { callerWithRoles, type Caller } from '../support/rbac-factory.js';
import { createTestApp } from '../support/test-app.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';
import { installConsumer, ROOT, startConsumer, type RunningConsumer } from './consumer-support.js';

const CLIENT = { id: 'invoices-service', secret: 'invoices-service-secret-0123456789-abcdef' };

/** Waits (polling every few ms) until the condition holds; returns how long it took. */
async function within(ms: number, condition: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await condition()) return performance.now() - started;
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await sleep(5);
  }
}

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.99) - 1];

describe('a packed Nest 12 consumer guarding a route per organization', () => {
  const TRIALS = 20;
  let auth: NestFastifyApplication;
  let db: DataSource;
  let consumer: RunningConsumer;
  let admin: Caller;
  let memberRoleId: string;
  /** An organization role holding `invoices.view` only, as the docs' Globex example gives Ana. */
  let readerRoleId: string;
  let approverRoleId: string;

  beforeAll(async () => {
    const folder = await installConsumer(12);
    auth = await createTestApp({ env: { SERVICE_CLIENTS: `${CLIENT.id}:${CLIENT.secret}` } });
    await auth.listen(0, '127.0.0.1');
    db = auth.get(DataSource);
    consumer = await startConsumer(folder, {
      AUTH_URL: (await auth.getUrl()).replace('[::1]', '127.0.0.1'),
      AUTH_CLIENT_ID: CLIENT.id,
      AUTH_CLIENT_SECRET: CLIENT.secret,
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
    });
    await within(10_000, async () => {
      const health = (await (await fetch(`${consumer.baseUrl}/health/auth`)).json()) as { data: { fresh: boolean } };
      return health.data.fresh;
    });
    admin = await callerWithRoles(auth, db, ['admin']);
    [{ id: memberRoleId }] = await db.query(`SELECT id FROM organization_roles WHERE name = 'member'`);
    // The docs' set-up, through the admin API as docs/organizations.md writes it.
    const permissionIds: Record<string, string> = {};
    for (const name of ['invoices.view', 'invoices.approve']) {
      const created = await api('post', '/api/admin/organization-permissions', admin.token, { name });
      expect(created.status).toBe(201);
      permissionIds[name] = created.body.data.id as string;
    }
    const role = async (name: string, permissions: string[]) => {
      const created = await api('post', '/api/admin/organization-roles', admin.token, {
        name,
        permission_ids: permissions.map((permission) => permissionIds[permission]),
      });
      expect(created.status).toBe(201);
      return created.body.data.id as string;
    };
    approverRoleId = await role('approver', ['invoices.view', 'invoices.approve']);
    readerRoleId = await role('invoice-reader', ['invoices.view']);
  }, 900_000);

  afterAll(async () => {
    await consumer?.stop();
    await auth?.close();
  });

  const call = (path: string, token: string) =>
    fetch(`${consumer.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as { error?: { code: string }; data?: Record<string, unknown> },
    }));

  const api = (method: 'post' | 'put' | 'delete', path: string, token: string, body?: object) => {
    const req = request(auth.getHttpServer())[method](path).set('authorization', `Bearer ${token}`);
    return body ? req.send(body) : req;
  };

  async function organizationWithMember() {
    const created = await api('post', '/api/organizations', admin.token, {
      slug: `inv-${randomUUID().slice(0, 8)}`,
      name: 'Invoices',
    });
    const organizationId = created.body.data.id as string;
    const member = await registerUser(auth);
    const added = await api('post', `/api/organizations/${organizationId}/members`, admin.token, {
      user_id: member.id,
      role_ids: [memberRoleId, readerRoleId],
    });
    expect(added.status).toBe(201);
    const issued = await api('post', '/api/auth/organization-token', member.tokens.access_token, {
      organization_id: organizationId,
    });
    return { organizationId, member, orgToken: issued.body.data.access_token as string };
  }

  it("the docs' page shows the example consumer's controller as it stands", async () => {
    const page = await readFile(path.join(ROOT, 'docs/organizations.md'), 'utf8');
    const shown = /## A product's routes guarded per organization[\s\S]*?```ts\n([\s\S]*?)```/.exec(page);
    expect(shown).not.toBeNull();
    expect(shown![1]).toBe(await readFile(path.join(ROOT, 'examples/consumer/src/invoices.controller.ts'), 'utf8'));
  });

  it("the docs' example: Ana approves invoices at Acme and only reads them at Globex", async () => {
    const organization = async (name: string) => {
      const created = await api('post', '/api/organizations', admin.token, {
        slug: `${name.toLowerCase()}-${randomUUID().slice(0, 8)}`,
        name,
      });
      expect(created.status).toBe(201);
      return created.body.data.id as string;
    };
    const [acme, globex] = [await organization('Acme'), await organization('Globex')];
    const ana = await registerUser(auth);
    for (const [organizationId, roles] of [
      [acme, [memberRoleId]],
      [globex, [memberRoleId]],
    ] as const) {
      const added = await api('post', `/api/organizations/${organizationId}/members`, admin.token, {
        user_id: ana.id,
        role_ids: roles,
      });
      expect(added.status).toBe(201);
    }
    // As the docs write it: approver at Acme; member plus a role with invoices.view at Globex.
    expect(
      (
        await api('put', `/api/organizations/${acme}/members/${ana.id}/roles`, admin.token, {
          role_ids: [approverRoleId],
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api('put', `/api/organizations/${globex}/members/${ana.id}/roles`, admin.token, {
          role_ids: [memberRoleId, readerRoleId],
        })
      ).status,
    ).toBe(200);
    const tokenAt = async (organizationId: string) => {
      const issued = await api('post', '/api/auth/organization-token', ana.tokens.access_token, {
        organization_id: organizationId,
      });
      expect(issued.status).toBe(200);
      return issued.body.data.access_token as string;
    };
    const [acmeToken, globexToken] = [await tokenAt(acme), await tokenAt(globex)];
    const approve = (organizationId: string, token: string) =>
      fetch(`${consumer.baseUrl}/orgs/${organizationId}/invoices/inv-1/approve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as { error?: { code: string }; data?: unknown },
      }));

    const acmeList = await call(`/orgs/${acme}/invoices`, acmeToken);
    expect(acmeList.status).toBe(200);
    expect(acmeList.body.data).toMatchObject({ organization_id: acme });
    const approved = await approve(acme, acmeToken);
    expect(approved.status).toBe(201);
    expect(approved.body.data).toEqual({ organization_id: acme, id: 'inv-1', approved_by: ana.id });

    expect((await call(`/orgs/${globex}/invoices`, globexToken)).status).toBe(200);
    const refused = await approve(globex, globexToken);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe('FORBIDDEN');

    const elsewhere = await approve(globex, acmeToken);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.error?.code).toBe('ORGANIZATION_MISMATCH');
    const ordinary = await approve(acme, ana.tokens.access_token);
    expect(ordinary.status).toBe(403);
    expect(ordinary.body.error?.code).toBe('ORGANIZATION_REQUIRED');
  });

  it("passes the organization's token and refuses an ordinary one and another organization's", async () => {
    const { organizationId, member, orgToken } = await organizationWithMember();
    const ok = await call(`/orgs/${organizationId}/invoices`, orgToken);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ organization_id: organizationId });
    const ordinary = await call(`/orgs/${organizationId}/invoices`, member.tokens.access_token);
    expect(ordinary.status).toBe(403);
    expect(ordinary.body.error?.code).toBe('ORGANIZATION_REQUIRED');
    const other = await call(`/orgs/${randomUUID()}/invoices`, orgToken);
    expect(other.status).toBe(403);
    expect(other.body.error?.code).toBe('ORGANIZATION_MISMATCH');
  });

  it(`refuses a removed member within 1 s (p99 of ${TRIALS} removals)`, async () => {
    const delays: number[] = [];
    for (let i = 0; i < TRIALS; i++) {
      const { organizationId, member, orgToken } = await organizationWithMember();
      expect((await call(`/orgs/${organizationId}/invoices`, orgToken)).status).toBe(200);
      const removed = await api('delete', `/api/organizations/${organizationId}/members/${member.id}`, admin.token);
      expect(removed.status).toBe(200);
      delays.push(
        await within(5_000, async () => (await call(`/orgs/${organizationId}/invoices`, orgToken)).status === 401),
      );
    }
    expect(p99(delays)).toBeLessThan(1_000);
  }, 180_000);

  it(`refuses a member whose organization roles were taken within 1 s (p99 of ${TRIALS} changes)`, async () => {
    const delays: number[] = [];
    for (let i = 0; i < TRIALS; i++) {
      const { organizationId, member, orgToken } = await organizationWithMember();
      expect((await call(`/orgs/${organizationId}/invoices`, orgToken)).status).toBe(200);
      const changed = await request(auth.getHttpServer())
        .put(`/api/organizations/${organizationId}/members/${member.id}/roles`)
        .set('authorization', `Bearer ${admin.token}`)
        .send({ role_ids: [] });
      expect(changed.status).toBe(200);
      delays.push(
        await within(5_000, async () => (await call(`/orgs/${organizationId}/invoices`, orgToken)).status === 403),
      );
    }
    expect(p99(delays)).toBeLessThan(1_000);
  }, 180_000);
});
