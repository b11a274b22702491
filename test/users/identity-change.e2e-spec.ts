import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import {
  decodeJwt,
  login,
  loginTokens,
  me,
  refresh,
  registerUser,
  sha256Hex,
  uniqueEmail,
  uniqueMobile,
  type RegisteredUser,
} from '../support/auth-factory.js';
import { callerWithPermissions, type Caller } from '../support/rbac-factory.js';
import { useTestApp } from '../support/fixture.js';
import { resetTokenFrom, type ReceivedMail, type SmtpSink } from '../support/smtp-sink.js';

const APP_URL = 'https://accounts.example.test';
const NEW_PASSWORD = 'Violet-Harbour-Quill-77';
/** A name an attacker would like to see in a mail sent by the service. */
const HOSTILE_NAME = 'Visit https://evil.example now';

describe('identity changes: what was issued to the old identity ends', () => {
  let sink: SmtpSink;
  let app: NestFastifyApplication;
  let db: DataSource;
  let admin: Caller;

  const fixture = useTestApp({ smtp: true, env: { APP_URL } });
  beforeAll(async () => {
    ({ smtp: sink, app, db } = fixture);
    admin = await callerWithPermissions(app, db, ['users.view', 'users.edit']);
  });

  const server = () => app.getHttpServer();
  const adminUpdate = (id: string, body: object) =>
    request(server()).put(`/api/admin/users/${id}`).set('authorization', `Bearer ${admin.token}`).send(body);
  const forgot = (email: string) => request(server()).post('/api/auth/forgot-password').send({ email });
  const reset = (token: string, password = NEW_PASSWORD) =>
    request(server()).post('/api/auth/reset-password').send({ token, password, password_confirmation: password });

  /** The notice the previous address receives: fixed text, nothing the user (or an attacker) chose. */
  function expectFixedNotice(mail: ReceivedMail, user: RegisteredUser, newEmail?: string) {
    expect(mail.raw).toMatch(/^Subject: .*changed/im);
    expect(mail.text).not.toContain(HOSTILE_NAME);
    expect(mail.text).not.toContain('evil.example');
    if (newEmail) expect(mail.text).not.toContain(newEmail);
    expect(mail.text).not.toContain(user.password);
    expect(mail.text).not.toContain(NEW_PASSWORD);
  }

  async function expectOldTokensDead(user: RegisteredUser) {
    const meRes = await me(app, user.tokens.access_token);
    expect(meRes.status).toBe(401);
    expect(meRes.body.error.code).toBe('UNAUTHENTICATED');
    const refreshRes = await refresh(app, user.tokens.refresh_token);
    expect(refreshRes.status).toBe(401);
    expect(['UNAUTHENTICATED', 'REFRESH_TOKEN_REUSED']).toContain(refreshRes.body.error.code);
  }

  describe('by an administrator', () => {
    it('email: old access and refresh tokens are 401, the previous address gets a fixed notice, the new address signs in', async () => {
      const user = await registerUser(app, { name: HOSTILE_NAME });
      const second = await loginTokens(app, user);
      const newEmail = uniqueEmail('moved');

      const res = await adminUpdate(user.id, { email: newEmail });
      expect(res.status).toBe(200);
      expect(res.body.data.email).toBe(newEmail);

      await expectOldTokensDead(user);
      expect((await me(app, second.access_token)).status).toBe(401);
      expectFixedNotice(await sink.waitForMail(user.email), user, newEmail);
      // Nothing is sent to the new address: the notice is for whoever held the old one.
      expect(sink.mailsTo(newEmail)).toEqual([]);

      expect((await login(app, { email: newEmail, password: user.password })).status).toBe(200);
      const old = await login(app, { email: user.email, password: user.password });
      expect(old.status).toBe(401);
      expect(old.body.error.code).toBe('INVALID_CREDENTIALS');
    });

    it('email: a refresh of a new session carries the new email claim', async () => {
      const user = await registerUser(app);
      const newEmail = uniqueEmail('claims');
      expect((await adminUpdate(user.id, { email: newEmail })).status).toBe(200);
      const tokens = await loginTokens(app, { email: newEmail, password: user.password });
      const rotated = await refresh(app, tokens.refresh_token);
      expect(rotated.status).toBe(200);
      expect(decodeJwt(rotated.body.data.access_token).payload.email).toBe(newEmail);
      expect(decodeJwt(rotated.body.data.refresh_token).payload.email).toBe(newEmail);
      expect(rotated.body.data.user.email).toBe(newEmail);
    });

    it('mobile: old tokens are 401, a notice goes to the email address, the new mobile signs in', async () => {
      const oldMobile = uniqueMobile();
      const user = await registerUser(app, { name: HOSTILE_NAME, mobile: oldMobile });
      const newMobile = uniqueMobile();

      const res = await adminUpdate(user.id, { mobile: newMobile });
      expect(res.status).toBe(200);

      await expectOldTokensDead(user);
      expectFixedNotice(await sink.waitForMail(user.email), user);
      expect((await login(app, { mobile: newMobile, password: user.password })).status).toBe(200);
      expect((await login(app, { mobile: oldMobile, password: user.password })).status).toBe(401);
    });

    it('mobile removed (null): old tokens are 401 and a notice is sent', async () => {
      const user = await registerUser(app, { mobile: uniqueMobile() });
      expect((await adminUpdate(user.id, { mobile: null })).status).toBe(200);
      await expectOldTokensDead(user);
      await sink.waitForMail(user.email);
    });

    it('password: old tokens are 401, a notice is sent, the new password signs in and the old one does not', async () => {
      const user = await registerUser(app, { name: HOSTILE_NAME });
      expect((await adminUpdate(user.id, { password: NEW_PASSWORD })).status).toBe(200);
      await expectOldTokensDead(user);
      expectFixedNotice(await sink.waitForMail(user.email), user);
      expect((await login(app, { email: user.email, password: NEW_PASSWORD })).status).toBe(200);
      expect((await login(app, { email: user.email, password: user.password })).status).toBe(401);
    });

    it('a name change alone ends nothing and mails nobody', async () => {
      const user = await registerUser(app);
      expect((await adminUpdate(user.id, { name: 'Renamed Person' })).status).toBe(200);
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
      // A later mail to the same address proves the sink has caught up with anything sent before it.
      await forgot(user.email);
      const first = await sink.waitForMail(user.email);
      expect(first.text).toContain(`${APP_URL}/reset-password?token=`);
    });

    it('the same email written again is no change: sessions stay, no notice', async () => {
      const user = await registerUser(app);
      expect((await adminUpdate(user.id, { email: user.email.toUpperCase() })).status).toBe(200);
      expect((await me(app, user.tokens.access_token)).status).toBe(200);
    });

    it('writes one audit event naming the fields changed, the actor, the target and the address', async () => {
      const user = await registerUser(app);
      expect((await adminUpdate(user.id, { email: uniqueEmail('audited'), name: 'Audited' })).status).toBe(200);
      const events = await db.query(
        `SELECT type, actor_id, target_type, target_id, ip, details FROM audit_events WHERE target_id = $1 AND type = 'user.update'`,
        [user.id],
      );
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        actor_id: admin.id,
        target_type: 'user',
        target_id: user.id,
        ip: expect.any(String),
      });
      expect([...events[0].details.fields].sort()).toEqual(['email', 'name']);
      expect(JSON.stringify(events[0].details)).not.toContain('@');
    });

    it('an outstanding reset token is void after an email change: 400 RESET_TOKEN_INVALID', async () => {
      const user = await registerUser(app);
      expect((await forgot(user.email)).status).toBe(200);
      const token = resetTokenFrom(await sink.waitForMail(user.email), APP_URL);
      expect((await adminUpdate(user.id, { email: uniqueEmail('moved') })).status).toBe(200);
      const res = await reset(token);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: { code: 'RESET_TOKEN_INVALID', message: expect.any(String) } });
    });

    it('an outstanding reset token is void after a password change: 400 RESET_TOKEN_INVALID', async () => {
      const user = await registerUser(app);
      expect((await forgot(user.email)).status).toBe(200);
      const token = resetTokenFrom(await sink.waitForMail(user.email), APP_URL);
      expect((await adminUpdate(user.id, { password: 'Amber-Canyon-Socket-19' })).status).toBe(200);
      const res = await reset(token);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('RESET_TOKEN_INVALID');
      // The administrator's password stands.
      expect((await login(app, { email: user.email, password: 'Amber-Canyon-Socket-19' })).status).toBe(200);
    });
  });

  describe('by a password reset', () => {
    it('revokes every session, voids the other reset tokens of the user, and sends a notice', async () => {
      const user = await registerUser(app, { name: HOSTILE_NAME });
      expect((await forgot(user.email)).status).toBe(200);
      const token = resetTokenFrom(await sink.waitForMail(user.email), APP_URL);
      // A second outstanding token of the same user (as a concurrent request could leave behind).
      const other = 'other-outstanding-reset-token-0123456789abcdef';
      await db.query(
        `INSERT INTO password_reset_tokens (user_id, token_hash, expires_at) VALUES ($1, $2, now() + interval '1 hour')`,
        [user.id, sha256Hex(other)],
      );

      expect((await reset(token)).status).toBe(200);
      await expectOldTokensDead(user);
      const again = await reset(other, 'Another-Fresh-Secret-5');
      expect(again.status).toBe(400);
      expect(again.body.error.code).toBe('RESET_TOKEN_INVALID');
      expectFixedNotice(await sink.waitForMail(user.email, 2), user);
      expect((await login(app, { email: user.email, password: NEW_PASSWORD })).status).toBe(200);
    });
  });

  describe('concurrency', () => {
    it("a reset racing an administrator's changes of the same user: no 5xx, and no reset outlives a change", async () => {
      for (let round = 0; round < 5; round += 1) {
        const user = await registerUser(app);
        expect((await forgot(user.email)).status).toBe(200);
        const token = resetTokenFrom(await sink.waitForMail(user.email), APP_URL);
        const [resetRes, changeRes, passwordRes] = await Promise.all([
          reset(token),
          adminUpdate(user.id, { email: uniqueEmail('race') }),
          adminUpdate(user.id, { password: 'Amber-Canyon-Socket-19' }),
        ]);
        expect(changeRes.status).toBe(200);
        expect(passwordRes.status).toBe(200);
        expect([200, 400]).toContain(resetRes.status);
        // Whatever the order, the token is spent now.
        expect((await reset(token)).status).toBe(400);
      }
    });
  });

  describe('refresh claims', () => {
    it('come from the current record, not from the presented refresh token', async () => {
      const user = await registerUser(app);
      const current = uniqueEmail('current');
      // The record changes without ending the session, as the account holder's own change will.
      await db.query(`UPDATE users SET email = $1 WHERE id = $2`, [current, user.id]);
      const rotated = await refresh(app, user.tokens.refresh_token);
      expect(rotated.status).toBe(200);
      expect(decodeJwt(rotated.body.data.access_token).payload.email).toBe(current);
      expect(decodeJwt(rotated.body.data.refresh_token).payload.email).toBe(current);
    });
  });
});
