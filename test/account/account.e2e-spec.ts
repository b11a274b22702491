import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import {
  loginTokens,
  me,
  refresh,
  registerUser,
  login,
  uniqueEmail,
  uniqueMobile,
  type RegisteredUser,
} from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import type { SmsReceiver } from '../support/sms-receiver.js';
import { callerWithPermissions } from '../support/rbac-factory.js';
import type { SmtpSink } from '../support/smtp-sink.js';

const APP_URL = 'https://accounts.example.test';
const NEW_PASSWORD = 'Violet-Harbour-Quill-77';
const NO_SESSION = '00000000-0000-4000-8000-000000000000';

describe('the account holder: profile, password and sessions', () => {
  const fixture = useTestApp({ smtp: true, sms: true, env: { APP_URL, OTP_RESEND_SECONDS: '0' } });
  let sink: SmtpSink;
  let sms: SmsReceiver;
  let app: NestFastifyApplication;
  let db: DataSource;
  beforeAll(() => void ({ smtp: sink, sms, app, db } = fixture));

  const server = () => app.getHttpServer();
  const as = (token: string) => ({
    get: (path: string) => request(server()).get(path).set('authorization', `Bearer ${token}`),
    post: (path: string, body?: object) =>
      request(server())
        .post(path)
        .set('authorization', `Bearer ${token}`)
        .send(body ?? {}),
    patch: (path: string, body: object) =>
      request(server()).patch(path).set('authorization', `Bearer ${token}`).send(body),
    delete: (path: string, body?: object) =>
      request(server())
        .delete(path)
        .set('authorization', `Bearer ${token}`)
        .send(body ?? {}),
  });

  it.each([
    ['get', '/api/account'],
    ['patch', '/api/account'],
    ['post', '/api/account/password'],
    ['post', '/api/account/email'],
    ['post', '/api/account/mobile'],
    ['post', '/api/account/mobile/confirm'],
    ['get', '/api/account/sessions'],
    ['delete', `/api/account/sessions/${NO_SESSION}`],
    ['post', '/api/account/sessions/revoke-others'],
    ['post', '/api/account/totp'],
    ['post', '/api/account/totp/confirm'],
    ['delete', '/api/account/totp'],
    ['post', '/api/account/reauthenticate'],
    ['get', `/api/admin/users/${NO_SESSION}/sessions`],
    ['delete', `/api/admin/users/${NO_SESSION}/sessions/${NO_SESSION}`],
  ] as const)('%s %s without a token is 401', async (method, path) => {
    const res = await request(server())[method](path).send({});
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('shows the caller as /auth/me does, and renames them', async () => {
    const user = await registerUser(app);
    const res = await as(user.tokens.access_token).get('/api/account');
    expect(res.status).toBe(200);
    const meRes = await me(app, user.tokens.access_token);
    expect(res.body.data).toEqual(meRes.body.data);
    expect(res.body.data).toMatchObject({ id: user.id, email: user.email, roles: ['user'] });

    const renamed = await as(user.tokens.access_token).patch('/api/account', { name: '  Ada Lovelace ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.name).toBe('Ada Lovelace');
    // A name change ends no session.
    expect((await me(app, user.tokens.access_token)).status).toBe(200);

    const bidi = await as(user.tokens.access_token).patch('/api/account', { name: 'Ada \u202Eecila' });
    expect(bidi.status).toBe(400);
    expect(bidi.body.error.code).toBe('VALIDATION_FAILED');
    const refused = await as(user.tokens.access_token).patch('/api/account', { name: 'x', email: 'other@example.com' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_FAILED');
  });

  describe('password change', () => {
    it('needs the current password; then the old password fails, other sessions are dead and this one lives', async () => {
      const user = await registerUser(app);
      const other = await loginTokens(app, user);
      const wrong = await as(user.tokens.access_token).post('/api/account/password', {
        current_password: 'Not-The-Password-1',
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');

      const res = await as(user.tokens.access_token).post('/api/account/password', {
        current_password: user.password,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: {} });

      expect((await login(app, { email: user.email, password: user.password })).status).toBe(401);
      expect((await login(app, { email: user.email, password: NEW_PASSWORD })).status).toBe(200);
      expect((await me(app, other.access_token)).status).toBe(401);
      expect((await refresh(app, other.refresh_token)).status).toBe(401);
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
      expect((await refresh(app, user.tokens.refresh_token)).status).toBe(200);
      const events: { type: string }[] = await db.query(
        `SELECT type FROM audit_events WHERE actor_id = $1 AND type LIKE 'account.%' ORDER BY created_at`,
        [user.id],
      );
      expect(events.map((event) => event.type)).toEqual([
        'account.reauthentication_failure',
        'account.password_change',
      ]);
    });

    it('refuses a common password and a mismatched confirmation', async () => {
      const user = await registerUser(app);
      const common = await as(user.tokens.access_token).post('/api/account/password', {
        current_password: user.password,
        password: 'password123',
        password_confirmation: 'password123',
      });
      expect(common.status).toBe(400);
      expect(common.body.error.code).toBe('VALIDATION_FAILED');
      const mismatch = await as(user.tokens.access_token).post('/api/account/password', {
        current_password: user.password,
        password: NEW_PASSWORD,
        password_confirmation: `${NEW_PASSWORD}x`,
      });
      expect(mismatch.status).toBe(400);
      expect((await login(app, { email: user.email, password: user.password })).status).toBe(200);
    });
  });

  describe('email change', () => {
    const confirm = (token: string) => request(server()).post('/api/account/email/confirm').send({ token });
    function linkToken(text: string): string {
      const match = /\/confirm-email\?token=([A-Za-z0-9_-]+)/.exec(text);
      if (!match) throw new Error(`no confirmation link in:\n${text}`);
      return match[1];
    }

    it('applies only when the link sent to the new address is used, once; the old address is told', async () => {
      const user = await registerUser(app);
      const other = await loginTokens(app, user);
      const newEmail = uniqueEmail('moved');
      const res = await as(user.tokens.access_token).post('/api/account/email', { email: newEmail.toUpperCase() });
      expect(res.status).toBe(200);
      const link = await sink.waitForMail(newEmail);
      expect(link.text).toContain(`${APP_URL}/confirm-email?token=`);
      const notice = await sink.waitForMail(user.email);
      expect(notice.text).not.toContain(newEmail);

      // Nothing has changed yet.
      expect((await me(app, user.tokens.access_token)).body.data.email).toBe(user.email);
      expect((await login(app, { email: newEmail, password: user.password })).status).toBe(401);
      expect((await login(app, { email: user.email, password: user.password })).status).toBe(200);

      const token = linkToken(link.text);
      const bad = await confirm(`${token}x`);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('CONFIRMATION_TOKEN_INVALID');
      const done = await confirm(token);
      expect(done.status).toBe(200);
      expect((await me(app, user.tokens.access_token)).body.data.email).toBe(newEmail);
      expect((await me(app, other.access_token)).status).toBe(401);
      expect((await login(app, { email: newEmail, password: user.password })).status).toBe(200);
      expect((await login(app, { email: user.email, password: user.password })).status).toBe(401);
      const again = await confirm(token);
      expect(again.status).toBe(400);
      expect(again.body.error.code).toBe('CONFIRMATION_TOKEN_INVALID');
      const [stored] = await db.query(
        `SELECT secret_hash FROM account_change_requests WHERE user_id = $1 AND kind = 'email'`,
        [user.id],
      );
      expect(stored.secret_hash).not.toBe(token);
    });

    it('answers an address another account holds as a free one, and sends it nothing', async () => {
      const user = await registerUser(app);
      const holder = await registerUser(app);
      const res = await as(user.tokens.access_token).post('/api/account/email', { email: holder.email });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: {} });
      await sink.waitForMail(user.email);
      expect(sink.mailsTo(holder.email)).toHaveLength(0);
    });

    it('names the email as the taken field when an address containing "mobile" is taken before the link is used', async () => {
      const user = await registerUser(app);
      const newEmail = uniqueEmail('mobile.user');
      expect((await as(user.tokens.access_token).post('/api/account/email', { email: newEmail })).status).toBe(200);
      const link = await sink.waitForMail(newEmail);
      // Someone else registers the address between the request and its confirmation.
      await registerUser(app, { email: newEmail });
      const res = await confirm(linkToken(link.text));
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual({
        code: 'CONFLICT',
        message: 'This email is already registered.',
        details: [{ field: 'email', message: 'email is already registered' }],
      });
      // Asked again, the taken address is answered like a free one (it names no one's account).
      const held = await as(user.tokens.access_token).post('/api/account/email', { email: newEmail });
      expect(held.status).toBe(200);
    });
  });

  describe('mobile change', () => {
    it('applies when the SMS code sent to the new number comes back; a wrong code changes nothing', async () => {
      const user = await registerUser(app);
      const other = await loginTokens(app, user);
      const mobile = uniqueMobile();
      const res = await as(user.tokens.access_token).post('/api/account/mobile', { mobile });
      expect(res.status).toBe(200);
      const code = await sms.codeFor(mobile);
      const wrong = await as(user.tokens.access_token).post('/api/account/mobile/confirm', {
        code: code === '000000' ? '111111' : '000000',
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('INVALID_OTP');
      expect((await me(app, user.tokens.access_token)).body.data.mobile).toBeNull();
      const done = await as(user.tokens.access_token).post('/api/account/mobile/confirm', { code });
      expect(done.status).toBe(200);
      expect((await me(app, user.tokens.access_token)).body.data.mobile).toBe(mobile);
      expect((await me(app, other.access_token)).status).toBe(401);
      const replay = await as(user.tokens.access_token).post('/api/account/mobile/confirm', { code });
      expect(replay.status).toBe(401);
    });
  });

  describe('sessions', () => {
    async function twoSessions(): Promise<{
      user: RegisteredUser;
      second: { access_token: string; refresh_token: string };
    }> {
      const user = await registerUser(app);
      const second = await loginTokens(app, user);
      return { user, second };
    }

    it('lists both logins, marks the current one, and revoking one kills exactly that one', async () => {
      const { user, second } = await twoSessions();
      const list = await as(user.tokens.access_token).get('/api/account/sessions');
      expect(list.status).toBe(200);
      expect(list.body.data.total).toBe(2);
      for (const item of list.body.data.items) {
        expect(Object.keys(item).sort()).toEqual([
          'client_name',
          'created_at',
          'current',
          'id',
          'ip',
          'last_used_at',
          'user_agent',
        ]);
        // The API's own sign-ins were issued to no application.
        expect(item.client_name).toBeNull();
      }
      const current = list.body.data.items.filter((item: { current: boolean }) => item.current);
      expect(current).toHaveLength(1);
      const otherId = list.body.data.items.find((item: { current: boolean }) => !item.current).id as string;

      const res = await as(user.tokens.access_token).delete(`/api/account/sessions/${otherId}`);
      expect(res.status).toBe(200);
      expect((await me(app, second.access_token)).status).toBe(401);
      expect((await refresh(app, second.refresh_token)).status).toBe(401);
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
      const after = await as(user.tokens.access_token).get('/api/account/sessions');
      expect(after.body.data.total).toBe(1);
      expect(after.body.data.items[0].current).toBe(true);
    });

    it('sets last_used_at at the sign-in and again when the session is refreshed', async () => {
      const user = await registerUser(app);
      const before = await as(user.tokens.access_token).get('/api/account/sessions');
      expect(before.body.data.items[0].last_used_at).toEqual(expect.any(String));
      const rotated = await refresh(app, user.tokens.refresh_token);
      expect(rotated.status).toBe(200);
      const after = await as(rotated.body.data.access_token).get('/api/account/sessions');
      expect(Date.parse(after.body.data.items[0].last_used_at)).toBeGreaterThanOrEqual(
        Date.parse(before.body.data.items[0].last_used_at),
      );
    });

    it("answers someone else's session id with 404 and leaves that session alone", async () => {
      const { user } = await twoSessions();
      const stranger = await registerUser(app);
      const strangerSessions = await as(stranger.tokens.access_token).get('/api/account/sessions');
      const strangerSession = strangerSessions.body.data.items[0].id as string;
      const res = await as(user.tokens.access_token).delete(`/api/account/sessions/${strangerSession}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
      expect((await me(app, stranger.tokens.access_token)).status).toBe(200);
      const malformed = await as(user.tokens.access_token).delete('/api/account/sessions/not-a-uuid');
      expect(malformed.status).toBe(400);
    });

    it('revoke-others ends every other session and keeps this one', async () => {
      const { user, second } = await twoSessions();
      const third = await loginTokens(app, user);
      const res = await as(user.tokens.access_token).post('/api/account/sessions/revoke-others');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({});
      expect((await me(app, second.access_token)).status).toBe(401);
      expect((await me(app, third.access_token)).status).toBe(401);
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
      const events = await db.query(
        `SELECT type FROM audit_events WHERE actor_id = $1 AND type = 'session.revoke_others'`,
        [user.id],
      );
      expect(events).toHaveLength(1);
    });
  });

  describe("an administrator and another user's sessions", () => {
    it('lists and ends them under users.edit', async () => {
      const admin = await callerWithPermissions(app, db, ['users.view', 'users.edit']);
      const user = await registerUser(app);
      const list = await as(admin.token).get(`/api/admin/users/${user.id}/sessions`);
      expect(list.status).toBe(200);
      expect(list.body.data.total).toBe(1);
      expect(list.body.data.items[0].current).toBe(false);
      const res = await as(admin.token).delete(`/api/admin/users/${user.id}/sessions/${list.body.data.items[0].id}`);
      expect(res.status).toBe(200);
      expect((await me(app, user.tokens.access_token)).status).toBe(401);
    });

    it('is 403 without users.edit, and 403 against a more privileged account', async () => {
      const viewer = await callerWithPermissions(app, db, ['users.view']);
      const user = await registerUser(app);
      const denied = await as(viewer.token).get(`/api/admin/users/${user.id}/sessions`);
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('FORBIDDEN');

      const editor = await callerWithPermissions(app, db, ['users.view', 'users.edit']);
      const stronger = await callerWithPermissions(app, db, ['users.view', 'users.edit', 'roles.edit']);
      const list = await as(editor.token).get(`/api/admin/users/${stronger.id}/sessions`);
      expect(list.status).toBe(403);
      expect(list.body.error.code).toBe('FORBIDDEN');
      const revoke = await as(editor.token).delete(`/api/admin/users/${stronger.id}/sessions`);
      expect(revoke.status).toBe(403);
      expect(revoke.body.error.message).toBe(
        'You cannot change a user holding roles.edit, a permission you do not hold.',
      );
      expect((await me(app, stronger.token)).status).toBe(200);
    });
  });
});
