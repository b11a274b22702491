import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import {
  login,
  loginTokens,
  me,
  refresh,
  registerUser,
  sha256Hex,
  sleep,
  uniqueEmail,
  type RegisteredUser,
} from '../support/auth-factory.js';
import { resetTokenFrom, type SmtpSink } from '../support/smtp-sink.js';
import { useTestApp } from '../support/fixture.js';

const APP_URL = 'https://accounts.example.test';
const NEW_PASSWORD = 'Violet-Harbour-Quill-77';

describe('password reset by email', () => {
  let sink: SmtpSink;
  let app: NestFastifyApplication;
  let db: DataSource;

  // Several resets per address in a row: no resend interval here (password-reset-abuse tests it).
  const fixture = useTestApp({
    smtp: true,
    env: { APP_URL: `${APP_URL}/`, MAIL_FROM: 'Accounts <accounts@example.test>', OTP_RESEND_SECONDS: '0' },
  });
  beforeAll(() => void ({ smtp: sink, app, db } = fixture));

  const server = () => app.getHttpServer();
  const forgot = (email: string) => request(server()).post('/api/auth/forgot-password').send({ email });
  const reset = (token: string, password = NEW_PASSWORD, confirmation = password) =>
    request(server()).post('/api/auth/reset-password').send({ token, password, password_confirmation: confirmation });

  /** Asks for a reset and returns the token from the `count`-th mail the user receives. */
  async function resetTokenFor(user: { email: string }, count = 1): Promise<string> {
    const res = await forgot(user.email);
    expect(res.status).toBe(200);
    return resetTokenFrom(await sink.waitForMail(user.email, count), APP_URL);
  }

  it('mails a plain-text link ${APP_URL}/reset-password?token=... through SMTP', async () => {
    const user = await registerUser(app, { name: 'Mary Jackson' });
    const res = await forgot(user.email);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { message: expect.any(String) } });
    expect(JSON.stringify(res.body)).not.toMatch(/token/i);

    const mail = await sink.waitForMail(user.email);
    expect(mail.to).toEqual([user.email]);
    expect(mail.raw).toMatch(/^From: Accounts <accounts@example\.test>/im);
    expect(mail.raw).toMatch(/^Subject: .*reset/im);
    const token = resetTokenFrom(mail, APP_URL);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mail.text).toContain(`${APP_URL}/reset-password?token=${token}`);
    // Only the token's hash is stored.
    const rows = await db.query(`SELECT token_hash FROM password_reset_tokens WHERE user_id = $1`, [user.id]);
    expect(rows).toEqual([{ token_hash: sha256Hex(token) }]);
  });

  it('finds the account whatever the case and spacing of the email', async () => {
    const user = await registerUser(app);
    const res = await forgot(`  ${user.email.toUpperCase()} `);
    expect(res.status).toBe(200);
    expect(resetTokenFrom(await sink.waitForMail(user.email), APP_URL)).toBeTruthy();
  });

  it('answers an unknown email with the identical body and sends no mail', async () => {
    const known = await registerUser(app);
    const unknownEmail = uniqueEmail('nobody');
    const unknown = await forgot(unknownEmail);
    const knownRes = await forgot(known.email);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual(knownRes.body);
    // The known address's mail arrives; the unknown one gets nothing.
    await sink.waitForMail(known.email);
    expect(sink.mailsTo(unknownEmail)).toEqual([]);
  });

  it('resets once: 200 {} without tokens; the new password works, the old one fails', async () => {
    const user = await registerUser(app);
    const token = await resetTokenFor(user);
    const res = await reset(token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: {} });
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain(NEW_PASSWORD);

    const withNew = await login(app, { email: user.email, password: NEW_PASSWORD });
    expect(withNew.status).toBe(200);
    const withOld = await login(app, { email: user.email, password: user.password });
    expect(withOld.status).toBe(401);
    expect(withOld.body.error.code).toBe('INVALID_CREDENTIALS');

    const [row] = await db.query(`SELECT password_hash FROM users WHERE id = $1`, [user.id]);
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$/);
  });

  it('refuses the same token a second time with 400 RESET_TOKEN_INVALID', async () => {
    const user = await registerUser(app);
    const token = await resetTokenFor(user);
    expect((await reset(token)).status).toBe(200);
    const again = await reset(token, 'Another-Fresh-Secret-5');
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ success: false, error: { code: 'RESET_TOKEN_INVALID', message: expect.any(String) } });
    // The second attempt changed nothing.
    expect((await login(app, { email: user.email, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('revokes every session of the user: old access and refresh tokens are dead', async () => {
    const user = await registerUser(app);
    const second = await loginTokens(app, user);
    const bystander = await registerUser(app);
    const token = await resetTokenFor(user);
    expect((await reset(token)).status).toBe(200);

    for (const tokens of [user.tokens, second]) {
      const access = await me(app, tokens.access_token);
      expect(access.status).toBe(401);
      expect(access.body.error.code).toBe('UNAUTHENTICATED');
      const refreshed = await refresh(app, tokens.refresh_token);
      expect(refreshed.status).toBe(401);
      expect(refreshed.body.error.code).toBe('UNAUTHENTICATED');
    }
    const reasons = await db.query(`SELECT DISTINCT revoked_reason FROM sessions WHERE user_id = $1`, [user.id]);
    expect(reasons).toEqual([{ revoked_reason: 'password_reset' }]);
    // Another user's sessions are untouched.
    expect((await me(app, bystander.tokens.access_token)).status).toBe(200);
  });

  it('voids the first token when a second reset is requested', async () => {
    const user = await registerUser(app);
    const first = await resetTokenFor(user, 1);
    const second = await resetTokenFor(user, 2);
    expect(second).not.toBe(first);
    const stale = await reset(first);
    expect(stale.status).toBe(400);
    expect(stale.body.error.code).toBe('RESET_TOKEN_INVALID');
    expect((await reset(second)).status).toBe(200);
    expect((await login(app, { email: user.email, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('refuses unknown and malformed tokens', async () => {
    const unknown = await reset('A'.repeat(43));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('RESET_TOKEN_INVALID');
    for (const token of ['', 42, null]) {
      const res = await request(server())
        .post('/api/auth/reset-password')
        .send({ token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('validates the new password like registration does, without using up the token', async () => {
    const user = await registerUser(app);
    const token = await resetTokenFor(user);
    for (const [password, confirmation] of [
      ['short7!', 'short7!'],
      ['password123', 'password123'],
      [NEW_PASSWORD, `${NEW_PASSWORD}-typo`],
      [`Zq9!${'k'.repeat(125)}`, `Zq9!${'k'.repeat(125)}`],
    ]) {
      const res = await reset(token, password, confirmation);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.length).toBeGreaterThan(0);
    }
    expect((await reset(token)).status).toBe(200);
  });

  it('of parallel resets with one token, exactly one succeeds', async () => {
    const user = await registerUser(app);
    const token = await resetTokenFor(user);
    const passwords = Array.from({ length: 6 }, (_, i) => `Parallel-Reset-Pass-${i}-x`);
    const results = await Promise.all(passwords.map((password) => reset(token, password)));
    const winners = results.map((res, i) => ({ res, password: passwords[i] })).filter(({ res }) => res.status === 200);
    expect(winners).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 200)) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('RESET_TOKEN_INVALID');
    }
    // The winner's password is the one that took effect.
    expect((await login(app, { email: user.email, password: winners[0].password })).status).toBe(200);
    for (const password of passwords.filter((p) => p !== winners[0].password)) {
      expect((await login(app, { email: user.email, password })).status).toBe(401);
    }
  });

  it('refuses unknown fields and a non-object body', async () => {
    const extra = await request(server()).post('/api/auth/forgot-password').send({ email: uniqueEmail(), admin: true });
    expect(extra.status).toBe(400);
    expect(extra.body.error.code).toBe('VALIDATION_FAILED');
    const malformed = await forgot('not-an-email');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('RESET_TOKEN_EXPIRY', () => {
  let sink: SmtpSink;
  let app: NestFastifyApplication;

  const fixture = useTestApp({ smtp: true, env: { APP_URL, RESET_TOKEN_EXPIRY: '1', DB_POOL_SIZE: '3' } });
  beforeAll(() => void ({ smtp: sink, app } = fixture));

  it('refuses a token past its lifetime with 400 RESET_TOKEN_INVALID, and the password stays', async () => {
    const user: RegisteredUser = await registerUser(app);
    const requested = Date.now();
    expect(
      (await request(app.getHttpServer()).post('/api/auth/forgot-password').send({ email: user.email })).status,
    ).toBe(200);
    const token = resetTokenFrom(await sink.waitForMail(user.email), APP_URL);
    await sleep(Math.max(0, requested + 1500 - Date.now()));
    const res = await request(app.getHttpServer())
      .post('/api/auth/reset-password')
      .send({ token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('RESET_TOKEN_INVALID');
    expect((await login(app, { email: user.email, password: user.password })).status).toBe(200);
  });
});
