import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TOTP, URI } from 'otpauth';
import type { DataSource } from 'typeorm';
import { login, me, registerUser, sleep, type RegisteredUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithPermissions, callerWithRoles, type Caller } from '../support/rbac-factory.js';

const STEP_MS = 30_000;

/** Enrols an authenticator app for the user, as the person would: the code computed from the secret. */
async function enrolApp(app: NestFastifyApplication, user: RegisteredUser): Promise<TOTP> {
  const intoStep = Date.now() % STEP_MS;
  if (intoStep > STEP_MS - 8_000) await sleep(STEP_MS - intoStep + 500);
  const started = await call(app, 'post', '/api/account/totp', user.tokens.access_token, {});
  expect(started.status).toBe(200);
  const totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
  const confirmed = await call(app, 'post', '/api/account/totp/confirm', user.tokens.access_token, {
    code: totp.generate(),
  });
  expect(confirmed.status).toBe(200);
  return totp;
}

/**
 * `DELETE /api/admin/users/{id}/totp`: an administrator removes the authenticator app of a person
 * locked out by a lost device (decision 054), under users.edit and the privilege rules.
 */
describe('an administrator removing a user’s authenticator app', () => {
  const fixture = useTestApp();
  let app: NestFastifyApplication;
  let db: DataSource;
  let editor: Caller;
  beforeAll(async () => {
    ({ app, db } = fixture);
    editor = await callerWithPermissions(app, db, ['users.view', 'users.edit']);
  });

  const remove = (token: string, id: string) => call(app, 'delete', `/api/admin/users/${id}/totp`, token);
  const hasApp = async (userId: string) =>
    (await db.query(`SELECT 1 FROM totp_authenticators WHERE user_id = $1`, [userId])).length === 1;

  it('removes the app and its recovery codes, ends every session, audits it, and the password signs in alone again', async () => {
    const user = await registerUser(app);
    await enrolApp(app, user);
    const challenged = await login(app, { email: user.email, password: user.password });
    expect(challenged.body.data.requires_otp).toBe(true);

    const res = await remove(editor.token, user.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({});
    expect(await hasApp(user.id)).toBe(false);
    expect(await db.query(`SELECT 1 FROM recovery_codes WHERE user_id = $1`, [user.id])).toEqual([]);
    expect((await me(app, user.tokens.access_token)).status).toBe(401);

    const signedIn = await login(app, { email: user.email, password: user.password });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.access_token).toEqual(expect.any(String));

    const [event] = await db.query(
      `SELECT actor_id, target_type, target_id, details FROM audit_events WHERE type = 'totp.reset' AND target_id = $1`,
      [user.id],
    );
    expect(event).toMatchObject({ actor_id: editor.id, target_type: 'user', target_id: user.id });
    expect(event.details).toMatchObject({ removed: true, via: 'admin' });
  });

  it('answers 404 for a user with no app, and for no such user', async () => {
    const user = await registerUser(app);
    const none = await remove(editor.token, user.id);
    expect(none.status).toBe(404);
    expect(none.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'This user has no authenticator app.' });
    // Nothing was done: the user's session lives on.
    expect((await me(app, user.tokens.access_token)).status).toBe(200);
    const unknown = await remove(editor.token, '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  });

  it('refuses an administrator without users.edit (403) and leaves the app in place', async () => {
    const viewer = await callerWithPermissions(app, db, ['users.view']);
    const user = await registerUser(app);
    await enrolApp(app, user);
    const res = await remove(viewer.token, user.id);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(await hasApp(user.id)).toBe(true);
    expect((await me(app, user.tokens.access_token)).status).toBe(200);
  });

  it('refuses removing the app of an account more privileged than the actor (403 FORBIDDEN)', async () => {
    const administrator = await callerWithRoles(app, db, ['admin']);
    await enrolApp(app, administrator);
    const res = await remove(editor.token, administrator.id);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(res.body.error.message).toMatch(
      /^You cannot change a user holding [a-z_.]+, a permission you do not hold\.$/,
    );
    expect(await hasApp(administrator.id)).toBe(true);
  });

  it('removes the app once when two administrators ask at the same time', async () => {
    const other = await callerWithPermissions(app, db, ['users.view', 'users.edit']);
    const user = await registerUser(app);
    await enrolApp(app, user);
    const answers = await Promise.all([remove(editor.token, user.id), remove(other.token, user.id)]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 404]);
    const events = await db.query(`SELECT 1 FROM audit_events WHERE type = 'totp.reset' AND target_id = $1`, [user.id]);
    expect(events).toHaveLength(1);
  });
});
