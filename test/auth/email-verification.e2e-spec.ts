import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import {
  login,
  me,
  registerUser,
  registrationBody,
  setCookies,
  sha256Hex,
  sleep,
  uniqueEmail,
} from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { callerWithPermissions } from '../support/rbac-factory.js';
import type { ReceivedMail, SmtpSink } from '../support/smtp-sink.js';

const APP_URL = 'https://accounts.example.test';

/** The token out of a verification mail's `${APP_URL}/verify-email?token=...` link. */
function verificationTokenFrom(mail: ReceivedMail): string {
  const match = /https:\/\/accounts\.example\.test\/verify-email\?token=([A-Za-z0-9_-]+)/.exec(mail.text);
  if (!match) throw new Error(`no verification link in the mail:\n${mail.text}`);
  return match[1];
}

function verifyEmail(app: NestFastifyApplication, token: unknown) {
  return request(app.getHttpServer()).post('/api/auth/verify-email').send({ token });
}

function resend(app: NestFastifyApplication, email: string) {
  return request(app.getHttpServer()).post('/api/auth/verify-email/resend').send({ email });
}

describe('email verification, REQUIRE_EMAIL_VERIFICATION off (the default)', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  let sink: SmtpSink;
  const fixture = useTestApp({ smtp: true, env: { APP_URL, OTP_RESEND_SECONDS: '2' } });
  beforeAll(() => ({ app, db, smtp: sink } = fixture));

  it('registration answers tokens as before, mails the link, and the link verifies the address once', async () => {
    const user = await registerUser(app);
    expect(user.tokens.access_token).toEqual(expect.any(String));
    expect((await me(app, user.tokens.access_token)).body.data.email_verified).toBe(false);

    const mail = await sink.waitForVerificationMail(user.email);
    expect(mail.raw).toMatch(/^Subject: Verify your email address/im);
    const token = verificationTokenFrom(mail);
    // Only the token's SHA-256 is stored.
    const rows: { token_hash: string }[] = await db.query(
      `SELECT token_hash FROM email_verification_tokens WHERE user_id = $1`,
      [user.id],
    );
    expect(rows).toEqual([{ token_hash: sha256Hex(token) }]);

    const verified = await verifyEmail(app, token);
    expect(verified.status).toBe(200);
    expect(verified.body.data).toEqual({});
    expect((await me(app, user.tokens.access_token)).body.data.email_verified).toBe(true);
    const account = await request(app.getHttpServer())
      .get('/api/account')
      .set('authorization', `Bearer ${user.tokens.access_token}`);
    expect(account.body.data.email_verified).toBe(true);

    const again = await verifyEmail(app, token);
    expect({ status: again.status, code: again.body.error.code }).toEqual({
      status: 400,
      code: 'CONFIRMATION_TOKEN_INVALID',
    });
  });

  it('an unknown, expired or malformed token is refused', async () => {
    const unknown = await verifyEmail(app, 'A'.repeat(43));
    expect({ status: unknown.status, code: unknown.body.error.code }).toEqual({
      status: 400,
      code: 'CONFIRMATION_TOKEN_INVALID',
    });
    const user = await registerUser(app);
    const token = verificationTokenFrom(await sink.waitForVerificationMail(user.email));
    await db.query(`UPDATE email_verification_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [
      user.id,
    ]);
    expect((await verifyEmail(app, token)).body.error.code).toBe('CONFIRMATION_TOKEN_INVALID');
    for (const bad of [undefined, 12, '', 'x'.repeat(300)]) {
      expect((await verifyEmail(app, bad)).body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('a link mailed before an email change verifies nothing after it; the changed address is verified', async () => {
    const admin = await callerWithPermissions(app, db, ['users.view', 'users.edit']);
    const user = await registerUser(app);
    const token = verificationTokenFrom(await sink.waitForVerificationMail(user.email));
    const newEmail = uniqueEmail('changed');
    const changed = await request(app.getHttpServer())
      .put(`/api/admin/users/${user.id}`)
      .set('authorization', `Bearer ${admin.token}`)
      .send({ email: newEmail });
    expect(changed.status).toBe(200);
    expect(changed.body.data.email_verified).toBe(true);
    expect((await verifyEmail(app, token)).body.error.code).toBe('CONFIRMATION_TOKEN_INVALID');
  });

  it('an address confirmed through the holder’s email change is verified', async () => {
    const user = await registerUser(app);
    expect((await me(app, user.tokens.access_token)).body.data.email_verified).toBe(false);
    const newEmail = uniqueEmail('confirmed');
    const asked = await request(app.getHttpServer())
      .post('/api/account/email')
      .set('authorization', `Bearer ${user.tokens.access_token}`)
      .send({ email: newEmail });
    expect(asked.status).toBe(200);
    const link = await sink.waitForMail(newEmail);
    const token = /\/confirm-email\?token=([A-Za-z0-9_-]+)/.exec(link.text)![1];
    expect((await request(app.getHttpServer()).post('/api/account/email/confirm').send({ token })).status).toBe(200);
    const after = await me(app, user.tokens.access_token);
    expect(after.body.data).toMatchObject({ email: newEmail, email_verified: true });
  });

  it('resend answers the same body for unknown, verified and unverified addresses, and mails only the last', async () => {
    const unverified = await registerUser(app);
    const first = verificationTokenFrom(await sink.waitForVerificationMail(unverified.email));
    const verified = await registerUser(app);
    expect(
      (await verifyEmail(app, verificationTokenFrom(await sink.waitForVerificationMail(verified.email)))).status,
    ).toBe(200);
    await sleep(2_100); // past OTP_RESEND_SECONDS since the registration's mail

    const answers = [];
    for (const email of [unverified.email, verified.email, uniqueEmail('nobody')]) {
      const res = await resend(app, email);
      answers.push({ status: res.status, body: res.body });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(answers[0].status).toBe(200);

    const second = verificationTokenFrom(await sink.waitForVerificationMail(unverified.email, 2));
    // Within OTP_RESEND_SECONDS of the last link, nothing more is sent; the answer is the same.
    expect(await resend(app, unverified.email)).toMatchObject({ status: 200, body: answers[0].body });
    await sleep(300);
    expect(sink.verificationMailsTo(unverified.email)).toHaveLength(2);
    expect(sink.verificationMailsTo(verified.email)).toHaveLength(1);

    // The new link voids the older one.
    expect((await verifyEmail(app, first)).body.error.code).toBe('CONFIRMATION_TOKEN_INVALID');
    expect((await verifyEmail(app, second)).status).toBe(200);
  });

  it('seeded accounts and accounts an administrator creates are verified', async () => {
    const seeded: { verified: boolean }[] = await db.query(
      `SELECT email_verified_at IS NOT NULL AS verified FROM users WHERE email IN ('admin@example.com', 'user@example.com')`,
    );
    expect(seeded.length).toBeGreaterThan(0);
    expect(seeded.every((row) => row.verified)).toBe(true);
    const admin = await callerWithPermissions(app, db, ['users.create']);
    const created = await request(app.getHttpServer())
      .post('/api/admin/users')
      .set('authorization', `Bearer ${admin.token}`)
      .send({ name: 'Made', email: uniqueEmail('made'), password: 'Plum-Orbit-Lantern-42' });
    expect(created.status).toBe(201);
    expect(created.body.data.email_verified).toBe(true);
  });

  it('the page at /verify-email is served like the reset page, under a strict policy', async () => {
    const page = await request(app.getHttpServer()).get('/verify-email?token=abc');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).not.toContain('abc');
    expect((await request(app.getHttpServer()).get('/verify-email/page.js')).status).toBe(200);
  });
});

describe('email verification, REQUIRE_EMAIL_VERIFICATION on', () => {
  let app: NestFastifyApplication;
  let sink: SmtpSink;
  const fixture = useTestApp({ smtp: true, env: { APP_URL, REQUIRE_EMAIL_VERIFICATION: 'true' } });
  beforeAll(() => ({ app, smtp: sink } = fixture));

  it('registration answers the account without tokens; sign-in waits for the link, said only after the right password', async () => {
    const body = registrationBody();
    const res = await request(app.getHttpServer()).post('/api/auth/register').send(body);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      user: { id: expect.any(String), name: body.name, email: body.email, mobile: null },
      requires_email_verification: true,
    });
    expect(setCookies(res)).toEqual({});

    const wrong = await login(app, { email: body.email, password: 'Not-The-Password-1' });
    expect({ status: wrong.status, code: wrong.body.error.code }).toEqual({ status: 401, code: 'INVALID_CREDENTIALS' });
    const unverified = await login(app, { email: body.email, password: body.password });
    expect({ status: unverified.status, code: unverified.body.error.code }).toEqual({
      status: 403,
      code: 'EMAIL_NOT_VERIFIED',
    });

    const token = verificationTokenFrom(await sink.waitForVerificationMail(String(body.email)));
    expect((await verifyEmail(app, token)).status).toBe(200);
    const signedIn = await login(app, { email: body.email, password: body.password });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.access_token).toEqual(expect.any(String));
  });
});

describe('verification mails per recipient: OTP_HOURLY_CAP an hour', () => {
  const fixture = useTestApp({
    database: 'seeded',
    smtp: true,
    env: { APP_URL, OTP_RESEND_SECONDS: '0', OTP_HOURLY_CAP: '2' },
  });

  it('the registration’s link and one resend reach the address; further resends answer the same and send nothing', async () => {
    const { app, smtp: sink } = fixture;
    const user = await registerUser(app);
    await sink.waitForVerificationMail(user.email);
    const first = await resend(app, user.email);
    await sink.waitForVerificationMail(user.email, 2);
    const capped = await resend(app, user.email);
    expect({ status: capped.status, body: capped.body }).toEqual({ status: first.status, body: first.body });
    await sleep(300);
    expect(sink.verificationMailsTo(user.email)).toHaveLength(2);
  });
});
