import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import {
  loginTokens,
  logout,
  me,
  registerUser,
  sleep,
  uniqueEmail,
  uniqueMobile,
  type RegisteredUser,
} from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { callerWithPermissions } from '../support/rbac-factory.js';
import { TEST_REDIS_URL, useRedis } from '../support/redis.js';
import type { SmsReceiver } from '../support/sms-receiver.js';
import { resetTokenFrom, type SmtpSink } from '../support/smtp-sink.js';

const APP_URL = 'https://accounts.example.test';
const NEW_PASSWORD = 'Walnut-Compass-Ember-58';

function linkToken(text: string, page: 'confirm-email' | 'cancel-email-change'): string {
  const match = new RegExp(`${APP_URL.replace(/[.:/]/g, '\\$&')}/${page}\\?token=([A-Za-z0-9_-]+)`).exec(text);
  if (!match) throw new Error(`no ${page} link in:\n${text}`);
  return match[1];
}

describe('a pending email or mobile change belongs to the session that asked for it', () => {
  const fixture = useTestApp({ smtp: true, sms: true, env: { APP_URL, OTP_RESEND_SECONDS: '0' } });
  let sink: SmtpSink;
  let sms: SmsReceiver;
  let app: NestFastifyApplication;
  let db: DataSource;
  beforeAll(() => void ({ smtp: sink, sms, app, db } = fixture));

  const server = () => app.getHttpServer();
  const post = (token: string | undefined, path: string, body: object = {}) => {
    const req = request(server()).post(path);
    if (token) void req.set('authorization', `Bearer ${token}`);
    return req.send(body);
  };
  const confirmEmail = (token: string) => post(undefined, '/api/account/email/confirm', { token });
  const cancelEmail = (token: string) => post(undefined, '/api/account/email/cancel', { token });

  function expectInvalidLink(res: request.Response): void {
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('CONFIRMATION_TOKEN_INVALID');
  }

  /** The holder signs in twice; the second session (the attacker's, say) asks for a change of email. */
  async function emailChangeAskedBySecondSession(): Promise<{
    user: RegisteredUser;
    asking: { access_token: string; refresh_token: string };
    newEmail: string;
    link: string;
    cancel: string;
  }> {
    const user = await registerUser(app);
    const asking = await loginTokens(app, user);
    const newEmail = uniqueEmail('pending');
    const res = await post(asking.access_token, '/api/account/email', { email: newEmail });
    expect(res.status).toBe(200);
    const link = linkToken((await sink.waitForMail(newEmail)).text, 'confirm-email');
    const cancel = linkToken((await sink.waitForMail(user.email)).text, 'cancel-email-change');
    return { user, asking, newEmail, link, cancel };
  }

  async function sessionIdOf(userId: string, except: string[] = []): Promise<string[]> {
    const rows: { id: string }[] = await db.query(
      `SELECT id FROM sessions WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at`,
      [userId],
    );
    return rows.map((row) => row.id).filter((id) => !except.includes(id));
  }

  async function expectEmailUnchanged(user: RegisteredUser): Promise<void> {
    const [row] = await db.query(`SELECT email FROM users WHERE id = $1`, [user.id]);
    expect(row.email).toBe(user.email);
  }

  it('the link is void once the asking session logs out', async () => {
    const { user, asking, link } = await emailChangeAskedBySecondSession();
    expect((await logout(app, asking.access_token)).status).toBe(200);
    expectInvalidLink(await confirmEmail(link));
    await expectEmailUnchanged(user);
  });

  it('the link is void once the holder revokes the other sessions', async () => {
    const { user, link } = await emailChangeAskedBySecondSession();
    expect((await post(user.tokens.access_token, '/api/account/sessions/revoke-others')).status).toBe(200);
    expectInvalidLink(await confirmEmail(link));
    await expectEmailUnchanged(user);
  });

  it('the link is void once an administrator ends the asking session', async () => {
    const { user, link } = await emailChangeAskedBySecondSession();
    const admin = await callerWithPermissions(app, db, ['users.view', 'users.edit']);
    const [, askingSession] = await sessionIdOf(user.id);
    const res = await request(server())
      .delete(`/api/admin/users/${user.id}/sessions/${askingSession}`)
      .set('authorization', `Bearer ${admin.token}`);
    expect(res.status).toBe(200);
    expectInvalidLink(await confirmEmail(link));
    await expectEmailUnchanged(user);
  });

  it('the link is void after a password reset', async () => {
    const { user, link } = await emailChangeAskedBySecondSession();
    expect((await post(undefined, '/api/auth/forgot-password', { email: user.email })).status).toBe(200);
    const resetMail = await sink.waitForMail(user.email, 2);
    const reset = await post(undefined, '/api/auth/reset-password', {
      token: resetTokenFrom(resetMail, APP_URL),
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    });
    expect(reset.status).toBe(200);
    expectInvalidLink(await confirmEmail(link));
    await expectEmailUnchanged(user);
  });

  it('the link still works while the asking session is live, and keeps that session', async () => {
    const { user, asking, newEmail, link } = await emailChangeAskedBySecondSession();
    expect((await confirmEmail(link)).status).toBe(200);
    expect((await me(app, asking.access_token)).body.data.email).toBe(newEmail);
    expect((await me(app, user.tokens.access_token)).status).toBe(401);
  });

  it('the mobile code is void once the asking session has ended', async () => {
    const user = await registerUser(app);
    const asking = await loginTokens(app, user);
    const mobile = uniqueMobile();
    expect((await post(asking.access_token, '/api/account/mobile', { mobile })).status).toBe(200);
    const code = await sms.codeFor(mobile);
    expect((await logout(app, asking.access_token)).status).toBe(200);
    expectInvalidLink(await post(user.tokens.access_token, '/api/account/mobile/confirm', { code }));
    expect((await me(app, user.tokens.access_token)).body.data.mobile).toBeNull();
  });

  describe('the cancel link in the notice to the old address', () => {
    it('cancels the change once: the new address’s link is then void', async () => {
      const { user, link, cancel } = await emailChangeAskedBySecondSession();
      const res = await cancelEmail(cancel);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: {} });
      expectInvalidLink(await confirmEmail(link));
      await expectEmailUnchanged(user);
      expectInvalidLink(await cancelEmail(cancel));
      const events = await db.query(
        `SELECT type FROM audit_events WHERE target_id = $1 AND type = 'account.email_change_cancel'`,
        [user.id],
      );
      expect(events).toHaveLength(1);
    });

    it('is stored as a hash, and an unknown or used-up token is 400', async () => {
      const { user, link, cancel } = await emailChangeAskedBySecondSession();
      const [row] = await db.query(
        `SELECT cancel_hash FROM account_change_requests WHERE user_id = $1 AND kind = 'email'`,
        [user.id],
      );
      expect(row.cancel_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.cancel_hash).not.toContain(cancel);
      expectInvalidLink(await cancelEmail(`${cancel}x`));
      // Once the change has applied, there is nothing left to cancel.
      expect((await confirmEmail(link)).status).toBe(200);
      expectInvalidLink(await cancelEmail(cancel));
    });

    it('takes a token and nothing else', async () => {
      const res = await cancelEmail('');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      const extra = await post(undefined, '/api/account/email/cancel', { token: 'abc', user_id: 'x' });
      expect(extra.status).toBe(400);
      expect(extra.body.error.code).toBe('VALIDATION_FAILED');
    });
  });

  describe.each([
    ['/confirm-email', '/api/account/email/confirm'],
    ['/cancel-email-change', '/api/account/email/cancel'],
  ])('GET %s: the page its link opens', (path, api) => {
    it('is a small page under a policy that runs only same-origin scripts, reflecting nothing of the link', async () => {
      const hostile = '"><script>alert(1)</script>';
      const res = await request(server()).get(`${path}?token=${encodeURIComponent(hostile)}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.text).not.toContain('alert(1)');
      expect(res.text).toContain(`<script src="${path}/page.js"></script>`);
      expect(res.text).not.toMatch(/<script>|<script [^>]*>[^<]+<\/script>|\son\w+=/);
      const script = await request(server()).get(`${path}/page.js`);
      expect(script.status).toBe(200);
      expect(script.headers['content-type']).toBe('application/javascript; charset=utf-8');
      expect(script.text).toContain(`"${api}"`);
      expect((await request(server()).get(`/api${path}`)).status).toBe(404);
    });
  });
});

describe('changes name no one else’s account', () => {
  const fixture = useTestApp({ smtp: true, sms: true, env: { APP_URL, OTP_RESEND_SECONDS: '0' } });
  let sink: SmtpSink;
  let sms: SmsReceiver;
  let app: NestFastifyApplication;
  let db: DataSource;
  beforeAll(() => void ({ smtp: sink, sms, app, db } = fixture));
  const post = (token: string, path: string, body: object) =>
    request(app.getHttpServer()).post(path).set('authorization', `Bearer ${token}`).send(body);

  async function conflictEvents(userId: string, type: string): Promise<unknown[]> {
    return db.query(`SELECT id FROM audit_events WHERE actor_id = $1 AND type = $2`, [userId, type]);
  }

  it('an address another account holds gets the answer a free one gets, no link, and an audit event', async () => {
    const user = await registerUser(app);
    const holder = await registerUser(app);
    const free = await post(user.tokens.access_token, '/api/account/email', { email: uniqueEmail('free') });
    const taken = await post(user.tokens.access_token, '/api/account/email', { email: holder.email });
    expect(taken.status).toBe(200);
    expect(taken.status).toBe(free.status);
    expect(taken.body).toEqual(free.body);
    // The notice to the old address goes either way; the taken address gets nothing.
    await sink.waitForMail(user.email, 2);
    await sleep(500);
    expect(sink.mailsTo(holder.email)).toHaveLength(0);
    expect(await conflictEvents(user.id, 'account.email_change_conflict')).toHaveLength(1);
  });

  it('a number another account holds gets the answer a free one gets, no code, and an audit event', async () => {
    const user = await registerUser(app);
    const takenNumber = uniqueMobile();
    await registerUser(app, { mobile: takenNumber });
    const freeNumber = uniqueMobile();
    const free = await post(user.tokens.access_token, '/api/account/mobile', { mobile: freeNumber });
    const taken = await post(user.tokens.access_token, '/api/account/mobile', { mobile: takenNumber });
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual(free.body);
    await sms.codeFor(freeNumber);
    await sleep(500);
    expect(sms.to(takenNumber)).toHaveLength(0);
    expect(await conflictEvents(user.id, 'account.mobile_change_conflict')).toHaveLength(1);
    // No code can complete it: the pending change is for a number whose code nobody received.
    const res = await post(user.tokens.access_token, '/api/account/mobile/confirm', { code: '123456' });
    expect(res.status).toBe(401);
  });
});

describe('one per-recipient limit in the outbox, whoever asks', () => {
  const fixture = useTestApp({ smtp: true, env: { APP_URL, OTP_RESEND_SECONDS: '60', OTP_HOURLY_CAP: '10' } });
  let sink: SmtpSink;
  let app: NestFastifyApplication;
  beforeAll(() => void ({ smtp: sink, app } = fixture));
  const post = (token: string | undefined, path: string, body: object) => {
    const req = request(app.getHttpServer()).post(path);
    if (token) void req.set('authorization', `Bearer ${token}`);
    return req.send(body);
  };

  it('four accounts asking for a change to one address put one mail in its inbox', async () => {
    const target = uniqueEmail('inbox');
    const users = await Promise.all([1, 2, 3, 4].map(() => registerUser(app)));
    for (const user of users) {
      const res = await post(user.tokens.access_token, '/api/account/email', { email: target });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: {} });
    }
    for (const user of users) await sink.waitForMail(user.email);
    await sleep(500);
    expect(sink.mailsTo(target)).toHaveLength(1);
  });

  it('an email-change link and a reset link to one address share the limit', async () => {
    const asker = await registerUser(app);
    const address = uniqueEmail('shared');
    expect((await post(asker.tokens.access_token, '/api/account/email', { email: address })).status).toBe(200);
    await sink.waitForMail(address);
    // The address gets an account of its own and asks for a reset within the cooldown: same answer, no mail.
    await registerUser(app, { email: address });
    expect((await post(undefined, '/api/auth/forgot-password', { email: address })).status).toBe(200);
    await sink.waitForMail(asker.email);
    await sleep(1000);
    expect(sink.mailsTo(address)).toHaveLength(1);
  });
});

describe('the per-recipient limit with REDIS_URL holds across instances', () => {
  const redis = useRedis();
  const fixture = useTestApp({
    smtp: true,
    env: { APP_URL, OTP_RESEND_SECONDS: '60', OTP_HOURLY_CAP: '10', REDIS_URL: TEST_REDIS_URL },
    instances: 2,
  });

  it('two instances, two accounts, one address: one mail, counted in Redis under a digest', async () => {
    const target = uniqueEmail('shared-inbox');
    for (const app of fixture.apps) {
      const user = await registerUser(app);
      const res = await request(app.getHttpServer())
        .post('/api/account/email')
        .set('authorization', `Bearer ${user.tokens.access_token}`)
        .send({ email: target });
      expect(res.status).toBe(200);
      await fixture.smtp.waitForMail(user.email);
    }
    await sleep(500);
    expect(fixture.smtp.mailsTo(target)).toHaveLength(1);
    const keys = await redis.client.keys('ratelimit:*');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join('\n')).not.toContain(target);
  });
});
