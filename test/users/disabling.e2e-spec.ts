import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DataSource } from 'typeorm';
import {
  login,
  loginTokens,
  me,
  refresh,
  registerUser,
  sleep,
  uniqueMobile,
  type RegisteredUser,
} from '../support/auth-factory.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';
import { TEST_REDIS_URL } from '../support/redis.js';
import { call, callerWithPermissions, grantRoles, roleWithPermissions, type Caller } from '../support/rbac-factory.js';

const adminRoleId = async (db: DataSource) =>
  (await db.query(`SELECT id FROM roles WHERE name = 'admin'`))[0].id as string;

/** A registered account holding the admin role, signed in after the grant. */
async function administrator(app: NestFastifyApplication, db: DataSource): Promise<Caller> {
  const user = await registerUser(app);
  await grantRoles(db, user.id, [await adminRoleId(db)]);
  const tokens = await loginTokens(app, user);
  return { ...user, tokens, token: tokens.access_token };
}

function expectDisabled(res: { status: number; body: { error?: { code: string } } }) {
  expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 403, code: 'ACCOUNT_DISABLED' });
}

describe('disabling accounts', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  let editor: Caller;

  const fixture = useTestApp({ database: 'migrated', env: SMS_LOGINS, sms: true });
  beforeAll(async () => {
    ({ app, db } = fixture);
    editor = await callerWithPermissions(app, db, ['users.view', 'users.edit']);
  });

  const disable = (token: string, id: string, body?: object) =>
    call(app, 'post', `/api/admin/users/${id}/disable`, token, body);
  const enable = (token: string, id: string) => call(app, 'post', `/api/admin/users/${id}/enable`, token);

  it('answers the user record, ends every session at once, and refuses each sign-in only after the right password', async () => {
    const user = await registerUser(app);
    const second = await loginTokens(app, user);

    const res = await disable(editor.token, user.id, { reason: 'left the company' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: user.id,
      email: user.email,
      disabled: true,
      disabled_until: null,
      disabled_reason: 'left the company',
      email_verified: false,
    });
    expect(typeof res.body.data.disabled_at).toBe('string');

    // Access and refresh tokens of every session: refused at their next use.
    expect((await me(app, user.tokens.access_token)).status).toBe(401);
    expect((await me(app, second.access_token)).status).toBe(401);
    const refreshed = await refresh(app, second.refresh_token);
    expect(refreshed.status).toBe(401);

    // A wrong password reads as for any account; the right one learns the account is disabled.
    const wrong = await login(app, { email: user.email, password: 'Wrong-Password-000' });
    expect({ status: wrong.status, code: wrong.body.error.code }).toEqual({ status: 401, code: 'INVALID_CREDENTIALS' });
    expectDisabled(await login(app, { email: user.email, password: user.password }));

    const shown = await call(app, 'get', `/api/admin/users/${user.id}`, editor.token);
    expect(shown.body.data).toMatchObject({ disabled: true, disabled_reason: 'left the company' });
    const audit: { type: string }[] = await db.query(
      `SELECT type FROM audit_events WHERE target_id = $1 AND type = 'user.disable'`,
      [user.id],
    );
    expect(audit).toHaveLength(1);
  });

  it('enable lets the account sign in again', async () => {
    const user = await registerUser(app);
    expect((await disable(editor.token, user.id)).status).toBe(200);
    expectDisabled(await login(app, { email: user.email, password: user.password }));

    const res = await enable(editor.token, user.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ disabled: false, disabled_at: null, disabled_until: null });
    expect((await login(app, { email: user.email, password: user.password })).status).toBe(200);
  });

  it('a refresh token of a disabled account is refused, also one whose session survived in the table', async () => {
    const user = await registerUser(app);
    expect((await disable(editor.token, user.id)).status).toBe(200);
    expect((await refresh(app, user.tokens.refresh_token)).status).toBe(401);

    // Even with its session brought back by hand, the refresh path asks the one check.
    const other = await registerUser(app);
    await db.query(`UPDATE users SET disabled_at = now(), disabled_until = NULL WHERE id = $1`, [other.id]);
    expectDisabled(await refresh(app, other.tokens.refresh_token));
  });

  it('until ends the disabling by itself', async () => {
    const user = await registerUser(app);
    const until = new Date(Date.now() + 2_000).toISOString();
    const res = await disable(editor.token, user.id, { until });
    expect(res.status).toBe(200);
    expect(new Date(res.body.data.disabled_until).toISOString()).toBe(until);
    expectDisabled(await login(app, { email: user.email, password: user.password }));

    await sleep(2_200);
    expect((await login(app, { email: user.email, password: user.password })).status).toBe(200);
    const shown = await call(app, 'get', `/api/admin/users/${user.id}`, editor.token);
    expect(shown.body.data.disabled).toBe(false);
  });

  it('until in the past, or not a date and time, is 400; unknown fields are 400', async () => {
    const user = await registerUser(app);
    for (const body of [
      { until: new Date(Date.now() - 60_000).toISOString() },
      { until: 'tomorrow' },
      { until: '2099-01-01' },
      { until: 12 },
      { reason: 'x'.repeat(256) },
      { banned: true },
    ]) {
      const res = await disable(editor.token, user.id, body);
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({
        body,
        status: 400,
        code: 'VALIDATION_FAILED',
      });
    }
    expect((await login(app, { email: user.email, password: user.password })).status).toBe(200);
  });

  it('needs users.edit, and an unknown id is 404', async () => {
    const user = await registerUser(app);
    const viewer = await callerWithPermissions(app, db, ['users.view']);
    const refused = await disable(viewer.token, user.id);
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect((await enable(viewer.token, user.id)).status).toBe(403);
    expect((await disable(editor.token, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('a users.edit holder cannot disable (or enable) an administrator', async () => {
    const admin = await administrator(app, db);
    const res = await disable(editor.token, admin.id);
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect((await me(app, admin.token)).status).toBe(200);
    expect((await enable(editor.token, admin.id)).status).toBe(403);
  });

  it('second factor: a challenge answered after the disabling is refused 403; a new password login is refused before any challenge', async () => {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    // Privileged (users.edit), so the password login asks for the SMS second factor; the editor holds as much.
    await grantRoles(db, user.id, [(await roleWithPermissions(db, ['users.edit'])).id]);
    const challenge = await login(app, { email: user.email, password: user.password });
    expect(challenge.body.data).toMatchObject({ requires_otp: true });
    const code = await fixture.sms.codeFor(mobile);
    expect((await disable(editor.token, user.id)).status).toBe(200);
    expectDisabled(
      await call(app, 'post', '/api/auth/otp/verify-2fa', undefined, {
        temp_token: challenge.body.data.temp_token,
        code,
      }),
    );
    const again = await login(app, { email: user.email, password: user.password });
    expectDisabled(again);
    expect(again.body.data).toBeUndefined();
  });

  it('SMS sign-in: send-otp answers as always and sends nothing; verify-otp is refused', async () => {
    const mobile = uniqueMobile();
    const user: RegisteredUser = await registerUser(app, { mobile });
    expect((await disable(editor.token, user.id)).status).toBe(200);
    const sent = await call(app, 'post', '/api/auth/send-otp', undefined, { mobile });
    expect(sent.status).toBe(200);
    await sleep(300);
    expect(fixture.sms.to(mobile)).toEqual([]);
  });

  it('SMS sign-in: a code sent before the disabling is right, and answered 403 ACCOUNT_DISABLED', async () => {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    expect((await call(app, 'post', '/api/auth/send-otp', undefined, { mobile })).status).toBe(200);
    const otp = await fixture.sms.codeFor(mobile);
    expect((await disable(editor.token, user.id)).status).toBe(200);
    expectDisabled(await call(app, 'post', '/api/auth/verify-otp', undefined, { mobile, otp }));
  });
});

describe('the last enabled administrator', () => {
  // A database of its own, whose seeded administrator loses the role: the two made here are the only ones.
  const fixture = useTestApp({ database: 'migrated' });
  const disable = (token: string, id: string) => call(fixture.app, 'post', `/api/admin/users/${id}/disable`, token);
  const enable = (token: string, id: string) => call(fixture.app, 'post', `/api/admin/users/${id}/enable`, token);

  it('cannot be disabled (409); another one can', async () => {
    const { app, db } = fixture;
    await db.query(`DELETE FROM user_roles WHERE role_id = $1`, [await adminRoleId(db)]);
    const first = await administrator(app, db);
    const second = await administrator(app, db);
    expect((await disable(first.token, second.id)).status).toBe(200);
    const last = await disable(first.token, first.id);
    expect({ status: last.status, code: last.body.error.code }).toEqual({ status: 409, code: 'CONFLICT' });
    expect((await me(app, first.token)).status).toBe(200);
    // Once the other is enabled again, the first may be disabled (by the other).
    expect((await enable(first.token, second.id)).status).toBe(200);
    const again = await loginTokens(app, second);
    expect((await disable(again.access_token, first.id)).status).toBe(200);
    expect((await enable(again.access_token, first.id)).status).toBe(200);
  });
});

describe('disabling on two instances sharing the database and Redis', () => {
  const fixture = useTestApp({ env: { REDIS_URL: TEST_REDIS_URL }, instances: 2 });

  it('a token warm in the other instance’s cache is refused at its next use there', async () => {
    const [first, second] = fixture.apps;
    const editor = await callerWithPermissions(first, fixture.db, ['users.edit']);
    const user = await registerUser(second);
    // Cached by the second instance.
    expect((await me(second, user.tokens.access_token)).status).toBe(200);
    expect((await me(second, user.tokens.access_token)).status).toBe(200);
    expect((await call(first, 'post', `/api/admin/users/${user.id}/disable`, editor.token)).status).toBe(200);
    expect((await me(second, user.tokens.access_token)).status).toBe(401);
    expect((await refresh(second, user.tokens.refresh_token)).status).toBe(401);
  });
});
