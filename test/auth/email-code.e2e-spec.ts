import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { decodeJwt, registerUser, sleep, uniqueEmail, uniqueMobile } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithPermissions, grantRoles } from '../support/rbac-factory.js';
import type { ReceivedMail, SmtpSink } from '../support/smtp-sink.js';

function askCode(app: NestFastifyApplication, email: string) {
  return request(app.getHttpServer()).post('/api/auth/email-code').send({ email });
}

function verifyCode(app: NestFastifyApplication, email: string, code: string) {
  return request(app.getHttpServer()).post('/api/auth/verify-email-code').send({ email, code });
}

/** The mail's only run of OTP_LENGTH (6) digits. */
function codeFrom(mail: ReceivedMail): string {
  const runs = (mail.text.match(/\d+/g) ?? []).filter((run) => run.length === 6);
  if (runs.length !== 1) throw new Error(`expected one code in ${mail.text}`);
  return runs[0];
}

const wrong = (code: string) =>
  code
    .split('')
    .map((digit) => String((Number(digit) + 1) % 10))
    .join('');

describe('sign-in by email code, flag off (the default)', () => {
  const fixture = useTestApp({ database: 'seeded', smtp: true });

  it('both routes answer 403 LOGIN_METHOD_DISABLED and nothing is mailed', async () => {
    const user = await registerUser(fixture.app);
    const asked = await askCode(fixture.app, user.email);
    expect({ status: asked.status, code: asked.body.error.code }).toEqual({
      status: 403,
      code: 'LOGIN_METHOD_DISABLED',
    });
    const verified = await verifyCode(fixture.app, user.email, '123456');
    expect({ status: verified.status, code: verified.body.error.code }).toEqual({
      status: 403,
      code: 'LOGIN_METHOD_DISABLED',
    });
    await sleep(200);
    expect(fixture.smtp.mailsTo(user.email)).toEqual([]);
  });

  it('PUT /api/admin/settings switches it on, and GET shows it beside the other two', async () => {
    const admin = await callerWithPermissions(fixture.app, fixture.db, ['settings.view', 'settings.edit']);
    const before = await call(fixture.app, 'get', '/api/admin/settings', admin.token);
    expect(before.body.data).toEqual({ email_password: true, mobile_otp: false, email_code: false });
    const put = await call(fixture.app, 'put', '/api/admin/settings', admin.token, { email_code: true });
    expect(put.body.data).toEqual({ email_password: true, mobile_otp: false, email_code: true });
    const user = await registerUser(fixture.app);
    expect((await askCode(fixture.app, user.email)).status).toBe(200);
  });
});

describe('sign-in by email code, flag on', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  let sink: SmtpSink;
  const fixture = useTestApp({
    database: 'seeded',
    smtp: true,
    env: { AUTH_EMAIL_CODE: 'true', AUTH_MOBILE_OTP: 'true', OTP_RESEND_SECONDS: '1' },
  });
  beforeAll(() => ({ app, db, smtp: sink } = fixture));

  it('mails a code of OTP_LENGTH digits, stored hashed, that signs in once with a TokenPair', async () => {
    const user = await registerUser(app);
    const asked = await askCode(app, user.email);
    expect(asked.status).toBe(200);
    expect(asked.body.data).toEqual({ expires_in: 300 });
    const code = codeFrom(await sink.waitForMail(user.email));

    const rows: { code_hash: string }[] = await db.query(
      `SELECT code_hash FROM one_time_codes WHERE purpose = 'email_sign_in' AND recipient = $1`,
      [user.email],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].code_hash).not.toContain(code);

    const res = await verifyCode(app, user.email, code);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ token_type: 'Bearer', user: { id: user.id, email: user.email } });
    expect(decodeJwt(res.body.data.access_token).payload).toMatchObject({
      amr: ['otp'],
      auth_time: expect.any(Number),
    });
    // The code proved the address.
    const me = await call(app, 'get', '/api/auth/me', res.body.data.access_token);
    expect(me.body.data.email_verified).toBe(true);

    const replay = await verifyCode(app, user.email, code);
    expect({ status: replay.status, code: replay.body.error.code }).toEqual({ status: 401, code: 'OTP_EXPIRED' });
  });

  it('answers the same body for a known and an unknown address, and mails only the account', async () => {
    const user = await registerUser(app);
    const nobody = uniqueEmail('nobody');
    const known = await askCode(app, user.email);
    const unknown = await askCode(app, nobody);
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: known.status, body: known.body });
    await sink.waitForMail(user.email);
    await sleep(200);
    expect(sink.allMailsTo(nobody)).toEqual([]);
    // A guess for the unknown address reads like a wrong code.
    const guess = await verifyCode(app, nobody, '123456');
    expect({ status: guess.status, code: guess.body.error.code }).toEqual({ status: 401, code: 'INVALID_OTP' });
  });

  it('three wrong codes burn it: the right one is then refused', async () => {
    const user = await registerUser(app);
    expect((await askCode(app, user.email)).status).toBe(200);
    const code = codeFrom(await sink.waitForMail(user.email));
    for (const remaining of [2, 1, 0]) {
      const res = await verifyCode(app, user.email, wrong(code));
      expect({ status: res.status, code: res.body.error.code, details: res.body.error.details }).toEqual({
        status: 401,
        code: 'INVALID_OTP',
        details: [{ attempts_remaining: remaining }],
      });
    }
    const burned = await verifyCode(app, user.email, code);
    expect({ status: burned.status, code: burned.body.error.code }).toEqual({
      status: 401,
      code: 'OTP_ATTEMPTS_EXCEEDED',
    });
  });

  it('one mail per OTP_RESEND_SECONDS: a second request within it answers the same and mails nothing', async () => {
    const user = await registerUser(app);
    const first = await askCode(app, user.email);
    const second = await askCode(app, user.email);
    expect(second.body).toEqual(first.body);
    await sink.waitForMail(user.email);
    await sleep(300);
    expect(sink.mailsTo(user.email)).toHaveLength(1);
  });

  it('a malformed code or address is 400', async () => {
    for (const body of [{ email: 'x@example.com', code: 'abc' }, { email: 'not-an-email', code: '123456' }, {}]) {
      const res = await request(app.getHttpServer()).post('/api/auth/verify-email-code').send(body);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect((await request(app.getHttpServer()).post('/api/auth/email-code').send({ email: 'x' })).status).toBe(400);
  });

  it('a disabled account: email-code answers as always and mails nothing; a code mailed before is refused 403', async () => {
    const editor = await callerWithPermissions(app, db, ['users.edit']);
    const before = await registerUser(app);
    expect((await askCode(app, before.email)).status).toBe(200);
    const code = codeFrom(await sink.waitForMail(before.email));
    expect((await call(app, 'post', `/api/admin/users/${before.id}/disable`, editor.token)).status).toBe(200);
    const refused = await verifyCode(app, before.email, code);
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({
      status: 403,
      code: 'ACCOUNT_DISABLED',
    });

    const user = await registerUser(app);
    expect((await call(app, 'post', `/api/admin/users/${user.id}/disable`, editor.token)).status).toBe(200);
    const asked = await askCode(app, user.email);
    expect(asked.status).toBe(200);
    expect(asked.body.data).toEqual({ expires_in: 300 });
    await sleep(300);
    expect(sink.mailsTo(user.email)).toEqual([]);
  });

  it('one factor: a privileged account gets the two-factor challenge after the code, or none without a second factor', async () => {
    const [{ id: adminRole }] = await db.query(`SELECT id FROM roles WHERE name = 'admin'`);
    const withMobile = await registerUser(app, { mobile: uniqueMobile() });
    await grantRoles(db, withMobile.id, [adminRole]);
    expect((await askCode(app, withMobile.email)).status).toBe(200);
    const challenged = await verifyCode(app, withMobile.email, codeFrom(await sink.waitForMail(withMobile.email)));
    expect(challenged.status).toBe(200);
    expect(challenged.body.data).toMatchObject({ requires_otp: true, temp_token: expect.any(String) });
    expect(challenged.body.data.access_token).toBeUndefined();

    const withoutMobile = await registerUser(app);
    await grantRoles(db, withoutMobile.id, [adminRole]);
    expect((await askCode(app, withoutMobile.email)).status).toBe(200);
    const refused = await verifyCode(app, withoutMobile.email, codeFrom(await sink.waitForMail(withoutMobile.email)));
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({
      status: 403,
      code: 'LOGIN_METHOD_DISABLED',
    });
  });
});
