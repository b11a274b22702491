import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TOTP, URI } from 'otpauth';
import type { DataSource } from 'typeorm';
import { login, registerUser, sleep } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithPermissions, type Caller } from '../support/rbac-factory.js';

interface Listed {
  type: string;
  actor_id: string | null;
  actor_email: string | null;
  target_id: string | null;
  target_email: string | null;
  details: Record<string, unknown>;
}

/** The audit list names people by their email, and records what a challenge really asked for. */
describe('the audit list’s people and challenges', () => {
  const fixture = useTestApp();
  let app: NestFastifyApplication;
  let db: DataSource;
  let auditor: Caller;
  beforeAll(async () => {
    ({ app, db } = fixture);
    auditor = await callerWithPermissions(app, db, ['audit.view']);
  });

  const events = async (query: string): Promise<Listed[]> => {
    const res = await call(app, 'get', `/api/admin/audit-events?${query}`, auditor.token);
    expect(res.status).toBe(200);
    return res.body.data.items;
  };

  it('gives the actor’s and the user target’s email beside their ids, and none once the account is deleted', async () => {
    const admin = await callerWithPermissions(app, db, ['users.view', 'users.edit', 'users.delete', 'roles.view']);
    const user = await registerUser(app);
    const [{ id: roleId }] = await db.query(`SELECT id FROM roles WHERE name = 'user'`);
    expect(
      (await call(app, 'put', `/api/admin/users/${user.id}/roles`, admin.token, { role_ids: [roleId] })).status,
    ).toBe(200);

    const [given] = await events(`type=user.roles&target_id=${user.id}`);
    expect(given).toMatchObject({
      actor_id: admin.id,
      actor_email: admin.email,
      target_id: user.id,
      target_email: user.email,
    });

    expect((await call(app, 'delete', `/api/admin/users/${user.id}`, admin.token)).status).toBe(200);
    const [after] = await events(`type=user.roles&target_id=${user.id}`);
    expect(after).toMatchObject({ target_id: user.id, target_email: null, actor_email: admin.email });
  });

  it('gives no email for a target that is not a user', async () => {
    const admin = await callerWithPermissions(app, db, ['roles.view', 'roles.create']);
    const created = await call(app, 'post', '/api/admin/permissions', admin.token, {
      name: `reports${Date.now()}.view`,
    });
    expect(created.status).toBe(201);
    const [event] = await events(`target_id=${created.body.data.id}`);
    expect(event).toMatchObject({ actor_email: admin.email, target_email: null });
  });

  it('records a password sign-in’s challenge with the methods it offers, not the way the account was named', async () => {
    const user = await registerUser(app);
    const intoStep = Date.now() % 30_000;
    if (intoStep > 22_000) await sleep(30_000 - intoStep + 500);
    const started = await call(app, 'post', '/api/account/totp', user.tokens.access_token, {});
    const totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
    expect(
      (await call(app, 'post', '/api/account/totp/confirm', user.tokens.access_token, { code: totp.generate() }))
        .status,
    ).toBe(200);

    const challenged = await login(app, { email: user.email, password: user.password });
    expect(challenged.body.data.requires_otp).toBe(true);
    const [challenge] = await events(`type=2fa.challenge&actor_id=${user.id}`);
    expect(challenge.details).toEqual({ login: 'email', methods: challenged.body.data.methods });
    expect(challenge.details.methods).toEqual(expect.arrayContaining(['totp']));
    expect(challenge.details).not.toHaveProperty('method');
  });
});
