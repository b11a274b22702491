import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { agedCopy, login, loginTokens, me, refresh, registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { grantRoles } from '../support/rbac-factory.js';

function deleteAccount(app: NestFastifyApplication, token?: string, body?: object) {
  const req = request(app.getHttpServer()).delete('/api/account');
  if (token) void req.set('authorization', `Bearer ${token}`);
  return body === undefined ? req : req.send(body);
}

const count = async (db: DataSource, sql: string, params: unknown[]) =>
  ((await db.query(sql, params)) as { n: number }[])[0].n;

describe('deleting one’s own account', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  const fixture = useTestApp({ database: 'migrated' });
  beforeAll(() => ({ app, db } = fixture));

  it('is announced on the event stream as credential-change, as an administrator’s deletion is', async () => {
    const user = await registerUser(app, { mobile: undefined });
    expect((await deleteAccount(app, user.tokens.access_token)).status).toBe(200);
    const events: { type: string; notBefore: string | null }[] = await db.query(
      `SELECT type, payload->>'not_before' AS "notBefore" FROM security_events
        WHERE payload->>'sub' = $1 AND type IN ('credential-change', 'session-revoked')`,
      [user.id],
    );
    expect(events).toEqual([{ type: 'credential-change', notBefore: expect.stringMatching(/^\d+$/) }]);
  });

  it('removes the account and everything of it in one go; audit events keep the id only', async () => {
    const user = await registerUser(app, { mobile: undefined });
    const other = await loginTokens(app, user);
    await request(app.getHttpServer()).post('/api/auth/forgot-password').send({ email: user.email });

    const res = await deleteAccount(app, user.tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({});

    expect((await me(app, user.tokens.access_token)).status).toBe(401);
    expect((await me(app, other.access_token)).status).toBe(401);
    expect((await refresh(app, other.refresh_token)).status).toBe(401);
    const signIn = await login(app, { email: user.email, password: user.password });
    expect({ status: signIn.status, code: signIn.body.error.code }).toEqual({
      status: 401,
      code: 'INVALID_CREDENTIALS',
    });

    for (const table of [
      'users WHERE id = $1',
      'sessions WHERE user_id = $1',
      'user_roles WHERE user_id = $1',
      'password_reset_tokens WHERE user_id = $1',
      'email_verification_tokens WHERE user_id = $1',
    ]) {
      expect({ table, n: await count(db, `SELECT count(*)::int AS n FROM ${table}`, [user.id]) }).toEqual({
        table,
        n: 0,
      });
    }
    const events: { type: string; details: unknown }[] = await db.query(
      `SELECT type, details FROM audit_events WHERE actor_id = $1 OR target_id = $1::text ORDER BY created_at`,
      [user.id],
    );
    expect(events.map((event) => event.type)).toContain('account.delete');
    expect(JSON.stringify(events)).not.toContain(user.email);
  });

  it('frees the address for a new registration', async () => {
    const user = await registerUser(app);
    expect((await deleteAccount(app, user.tokens.access_token)).status).toBe(200);
    const again = await registerUser(app, { email: user.email });
    expect(again.id).not.toBe(user.id);
    expect((await me(app, again.tokens.access_token)).status).toBe(200);
  });

  it('needs fresh authentication: a token whose auth_time is older than REAUTH_MAX_AGE is 403, and nothing is deleted', async () => {
    const user = await registerUser(app);
    const stale = await agedCopy(user.tokens.access_token, 301);
    const refused = await deleteAccount(app, stale);
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({
      status: 403,
      code: 'REAUTHENTICATION_REQUIRED',
    });
    expect((await me(app, user.tokens.access_token)).status).toBe(200);
    // After a re-authentication the same session may delete the account.
    const proof = await request(app.getHttpServer())
      .post('/api/account/reauthenticate')
      .set('authorization', `Bearer ${stale}`)
      .send({ password: user.password });
    expect(proof.status).toBe(200);
    expect((await deleteAccount(app, proof.body.data.access_token)).status).toBe(200);
  });

  it('needs an access token, and takes no body', async () => {
    expect((await deleteAccount(app)).status).toBe(401);
    const user = await registerUser(app);
    const withBody = await deleteAccount(app, user.tokens.access_token, { confirm: true });
    expect({ status: withBody.status, code: withBody.body.error.code }).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
    });
    expect((await me(app, user.tokens.access_token)).status).toBe(200);
  });

  it('the last administrator cannot delete their account (409); with another one they can', async () => {
    const [{ id: adminRole }] = await db.query(`SELECT id FROM roles WHERE name = 'admin'`);
    await db.query(`DELETE FROM user_roles WHERE role_id = $1`, [adminRole]);
    const only = await registerUser(app);
    await grantRoles(db, only.id, [adminRole]);
    const token = (await loginTokens(app, only)).access_token;
    const refused = await deleteAccount(app, token);
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 409, code: 'CONFLICT' });
    expect((await me(app, token)).status).toBe(200);

    const second = await registerUser(app);
    await grantRoles(db, second.id, [adminRole]);
    expect((await deleteAccount(app, token)).status).toBe(200);
  });
});
