import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { me, registerUser, sleep, uniqueMobile, type RegisteredUser } from '../support/auth-factory.js';
import type { TestDatabase } from '../support/databases.mjs';
import { SmsReceiver } from '../support/sms-receiver.js';
import { createTestApp } from '../support/test-app.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';

const CLI = path.resolve(import.meta.dirname, '../../dist/src/cli/main.js');

const STEP_MS = 30_000;

/** Codes are computed here, from the secret the service returned, as an authenticator app would. */
class App {
  constructor(readonly totp: TOTP) {}
  /** The code of the time step `offset` steps from now (the service accepts one step either side). */
  code(offset = 0): string {
    return this.totp.generate({ timestamp: Date.now() + offset * STEP_MS });
  }
}

/** Waits out the last seconds of a time step, so a sequence of codes of adjacent steps stays valid. */
async function awayFromStepEdge(): Promise<void> {
  const intoStep = Date.now() % STEP_MS;
  if (intoStep > STEP_MS - 8_000) await sleep(STEP_MS - intoStep + 500);
}

describe('authenticator app (TOTP) and recovery codes', () => {
  const fixture = useTestApp({ sms: true, env: SMS_LOGINS });
  let database: TestDatabase;
  let db: DataSource;
  let sms: SmsReceiver;
  let app: NestFastifyApplication;
  beforeAll(() => void ({ database, db, sms, app } = fixture));

  const server = () => app.getHttpServer();
  const authed = (token: string) => ({
    post: (path: string, body: object = {}) =>
      request(server()).post(path).set('authorization', `Bearer ${token}`).send(body),
    delete: (path: string, body: object = {}) =>
      request(server()).delete(path).set('authorization', `Bearer ${token}`).send(body),
  });
  const login = (user: { email: string; password: string }) =>
    request(server()).post('/api/auth/login').send({ email: user.email, password: user.password });
  const verify2fa = (body: object) => request(server()).post('/api/auth/otp/verify-2fa').send(body);

  /** Enrols an app for the user; returns the app and the recovery codes. */
  async function enrol(user: RegisteredUser): Promise<{ app: App; recoveryCodes: string[]; secret: string }> {
    await awayFromStepEdge();
    const started = await authed(user.tokens.access_token).post('/api/account/totp');
    expect(started.status).toBe(200);
    const totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
    const device = new App(totp);
    const confirmed = await authed(user.tokens.access_token).post('/api/account/totp/confirm', {
      code: device.code(-1),
    });
    expect(confirmed.status).toBe(200);
    return { app: device, recoveryCodes: confirmed.body.data.recovery_codes, secret: totp.secret.base32 };
  }

  it('enrols with a QR code and a first code, returns ten recovery codes, and stores no secret in the clear', async () => {
    const user = await registerUser(app);
    const started = await authed(user.tokens.access_token).post('/api/account/totp');
    expect(started.status).toBe(200);
    expect(Object.keys(started.body.data).sort()).toEqual(['otpauth_uri', 'qr_svg']);
    expect(started.body.data.otpauth_uri).toMatch(/^otpauth:\/\/totp\/.*secret=[A-Z2-7]+/);
    expect(started.body.data.qr_svg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    const totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
    expect(totp.digits).toBe(6);
    expect(totp.period).toBe(30);

    const wrong = await authed(user.tokens.access_token).post('/api/account/totp/confirm', {
      code: String((Number(totp.generate()) + 1) % 1_000_000).padStart(6, '0'),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_OTP');
    // Not enrolled yet: the login asks for nothing more.
    expect((await login(user)).body.data.access_token).toEqual(expect.any(String));

    const confirmed = await authed(user.tokens.access_token).post('/api/account/totp/confirm', {
      code: totp.generate(),
    });
    expect(confirmed.status).toBe(200);
    const codes: string[] = confirmed.body.data.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);

    const [stored] = await db.query(`SELECT secret_ciphertext FROM totp_authenticators WHERE user_id = $1`, [user.id]);
    expect(stored.secret_ciphertext).not.toContain(totp.secret.base32);
    const hashes: { code_hash: string }[] = await db.query(`SELECT code_hash FROM recovery_codes WHERE user_id = $1`, [
      user.id,
    ]);
    expect(hashes).toHaveLength(10);
    for (const code of codes) expect(JSON.stringify(hashes)).not.toContain(code.replace('-', ''));

    const again = await authed(user.tokens.access_token).post('/api/account/totp');
    expect(again.status).toBe(409);
    const events: { type: string }[] = await db.query(
      `SELECT type FROM audit_events WHERE actor_id = $1 AND type LIKE 'totp.%' ORDER BY created_at`,
      [user.id],
    );
    expect(events.map((event) => event.type)).toEqual(['totp.enrolment_start', 'totp.enable']);
  });

  it('asks for the app at login; a code works once; a wrong one costs an attempt', async () => {
    const user = await registerUser(app);
    const { app: device } = await enrol(user);

    const first = await login(user);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({
      requires_otp: true,
      temp_token: expect.any(String),
      mobile_masked: null,
      methods: ['totp', 'recovery'],
    });
    expect(first.body.data.access_token).toBeUndefined();
    const code = device.code(0);
    const done = await verify2fa({ temp_token: first.body.data.temp_token, code });
    expect(done.status).toBe(200);
    expect(done.body.data.user.id).toBe(user.id);

    const second = await login(user);
    const replay = await verify2fa({ temp_token: second.body.data.temp_token, code, method: 'totp' });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('INVALID_OTP');
    expect(replay.body.error.details).toEqual([{ attempts_remaining: 2 }]);
    const next = await verify2fa({ temp_token: second.body.data.temp_token, code: device.code(1) });
    expect(next.status).toBe(200);
    // The temp token is single use.
    const reused = await verify2fa({ temp_token: second.body.data.temp_token, code: device.code(1) });
    expect(reused.status).toBe(401);
    expect(reused.body.error.code).toBe('OTP_EXPIRED');
  });

  it('three wrong codes burn the temp token', async () => {
    const user = await registerUser(app);
    const { app: device } = await enrol(user);
    const challenge = await login(user);
    for (const remaining of [2, 1, 0]) {
      const res = await verify2fa({
        temp_token: challenge.body.data.temp_token,
        code: '000000' === device.code(0) ? '111111' : '000000',
      });
      expect(res.status).toBe(401);
      expect(res.body.error.details).toEqual([{ attempts_remaining: remaining }]);
    }
    const late = await verify2fa({ temp_token: challenge.body.data.temp_token, code: device.code(0) });
    expect(late.status).toBe(401);
    expect(late.body.error.code).toBe('OTP_ATTEMPTS_EXCEEDED');
  });

  it('a recovery code signs in once', async () => {
    const user = await registerUser(app);
    const { recoveryCodes } = await enrol(user);
    const first = await login(user);
    const ok = await verify2fa({ temp_token: first.body.data.temp_token, code: recoveryCodes[3], method: 'recovery' });
    expect(ok.status).toBe(200);
    const second = await login(user);
    const again = await verify2fa({
      temp_token: second.body.data.temp_token,
      code: recoveryCodes[3],
      method: 'recovery',
    });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('INVALID_OTP');
    const other = await verify2fa({
      temp_token: second.body.data.temp_token,
      code: recoveryCodes[4].toUpperCase(),
      method: 'recovery',
    });
    expect(other.status).toBe(200);
    const events = await db.query(
      `SELECT 1 FROM audit_events WHERE actor_id = $1 AND type = '2fa.recovery_code_used'`,
      [user.id],
    );
    expect(events).toHaveLength(2);
  });

  it('says how to send a recovery code that came without "method": "recovery", and costs no attempt', async () => {
    const user = await registerUser(app);
    const { recoveryCodes } = await enrol(user);
    const challenge = await login(user);
    const res = await verify2fa({ temp_token: challenge.body.data.temp_token, code: recoveryCodes[0] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details).toEqual([
      {
        field: 'code',
        message:
          'code must be a code of digits for method "totp"; to use a recovery code, send "method": "recovery" with it',
      },
    ]);
    const ok = await verify2fa({
      temp_token: challenge.body.data.temp_token,
      code: recoveryCodes[0],
      method: 'recovery',
    });
    expect(ok.status).toBe(200);
  });

  it('offers SMS as a fallback when the account has a mobile and both login methods are on', async () => {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    await enrol(user);
    const challenge = await login(user);
    expect(challenge.body.data.methods).toEqual(['totp', 'sms', 'recovery']);
    expect(challenge.body.data.mobile_masked).toEqual(expect.any(String));
    // No SMS until the client asks for one.
    const sent = await request(server()).post('/api/auth/otp/send-2fa').send({
      temp_token: challenge.body.data.temp_token,
    });
    expect(sent.status).toBe(200);
    const viaSms = await verify2fa({
      temp_token: challenge.body.data.temp_token,
      code: await sms.codeFor(mobile),
      method: 'sms',
    });
    expect(viaSms.status).toBe(200);
  });

  it('turns the app off only after a fresh proof that includes a second factor; then the login asks for nothing more', async () => {
    const user = await registerUser(app);
    const { app: device } = await enrol(user);
    const token = user.tokens.access_token;
    // The route takes no body: the proof is the token's `amr`.
    const withBody = await authed(token).delete('/api/account/totp', { code: device.code(0) });
    expect(withBody.status).toBe(400);
    expect(withBody.body.error.code).toBe('VALIDATION_FAILED');
    // Signed in with the password alone (registration): fresh, but one factor.
    const passwordOnly = await authed(token).delete('/api/account/totp');
    expect(passwordOnly.status).toBe(403);
    expect(passwordOnly.body.error.code).toBe('REAUTHENTICATION_REQUIRED');
    const byPassword = await authed(token).post('/api/account/reauthenticate', { password: user.password });
    expect(byPassword.status).toBe(200);
    const stillOne = await authed(byPassword.body.data.access_token).delete('/api/account/totp');
    expect(stillOne.status).toBe(403);
    expect(stillOne.body.error.code).toBe('REAUTHENTICATION_REQUIRED');

    const byApp = await authed(byPassword.body.data.access_token).post('/api/account/reauthenticate', {
      method: 'totp',
      code: device.code(0),
    });
    expect(byApp.status).toBe(200);
    const off = await authed(byApp.body.data.access_token).delete('/api/account/totp');
    expect(off.status).toBe(200);
    const res = await login(user);
    expect(res.body.data.access_token).toEqual(expect.any(String));
    expect((await me(app, res.body.data.access_token)).status).toBe(200);

    // A two-factor sign-in (password and app) may remove the app at once.
    const other = await registerUser(app);
    const { app: otherDevice } = await enrol(other);
    const challenge = await login(other);
    const signedIn = await verify2fa({ temp_token: challenge.body.data.temp_token, code: otherDevice.code(0) });
    expect(signedIn.status).toBe(200);
    const removed = await authed(signedIn.body.data.access_token).delete('/api/account/totp');
    expect(removed.status).toBe(200);
    const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM recovery_codes WHERE user_id = $1`, [
      other.id,
    ]);
    expect(count).toBe(0);
  });

  describe('command line, for a locked-out administrator', () => {
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, [CLI, ...args], {
        env: {
          PATH: process.env.PATH ?? '',
          DATABASE_URL: database.url,
          JWT_SECRET: TEST_JWT_SECRET,
          DB_MIGRATIONS_RUN: 'false',
          APP_ENV: 'test',
        },
      });

    it('reset-2fa removes the app and recovery codes and ends the sessions; the password signs in again', async () => {
      const user = await registerUser(app);
      await enrol(user);
      expect((await login(user)).body.data.requires_otp).toBe(true);
      const { stdout } = await cli('reset-2fa', '--email', user.email.toUpperCase());
      expect(stdout).toContain('removed');
      expect((await me(app, user.tokens.access_token)).status).toBe(401);
      const res = await login(user);
      expect(res.body.data.access_token).toEqual(expect.any(String));
      const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM recovery_codes WHERE user_id = $1`, [
        user.id,
      ]);
      expect(count).toBe(0);
    });

    it('revoke-sessions ends every session of the account', async () => {
      const user = await registerUser(app);
      const { stdout } = await cli('revoke-sessions', '--email', user.email);
      expect(stdout).toContain('1 session(s)');
      expect((await me(app, user.tokens.access_token)).status).toBe(401);
      await expect(cli('revoke-sessions', '--email', 'nobody@example.com')).rejects.toThrow();
    });
  });

  describe('REQUIRE_2FA_FOR_PRIVILEGED=true', () => {
    let enforcing: NestFastifyApplication;

    beforeAll(async () => {
      enforcing = await createTestApp({
        env: {
          DATABASE_URL: database.url,
          REQUIRE_2FA_FOR_PRIVILEGED: 'true',
          SMS_TRANSPORT: 'webhook',
          SMS_WEBHOOK_URL: sms.url,
        },
      });
    });

    afterAll(async () => {
      await enforcing.close();
    });

    const call = (method: 'get' | 'post', path: string, token: string, body: object = {}) =>
      request(enforcing.getHttpServer())[method](path).set('authorization', `Bearer ${token}`).send(body);

    it('gives a privileged account without a second factor a token that reaches only enrolment, until it enrols', async () => {
      const admin = await registerUser(enforcing);
      await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = 'admin'`, [
        admin.id,
      ]);
      const signedIn = await request(enforcing.getHttpServer())
        .post('/api/auth/login')
        .send({ email: admin.email, password: admin.password });
      expect(signedIn.status).toBe(200);
      const token = signedIn.body.data.access_token as string;

      const refused = await call('get', '/api/admin/users', token);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
      expect(refused.body.error.message).toBe(
        'This account must enrol a second factor first: set up an authenticator app at /api/account/totp.',
      );
      expect((await call('get', '/api/account/sessions', token)).status).toBe(403);
      expect((await call('get', '/api/account', token)).status).toBe(200);

      await awayFromStepEdge();
      const started = await call('post', '/api/account/totp', token);
      expect(started.status).toBe(200);
      const device = new App(URI.parse(started.body.data.otpauth_uri) as TOTP);
      const confirmed = await call('post', '/api/account/totp/confirm', token, { code: device.code(-1) });
      expect(confirmed.status).toBe(200);

      expect((await call('get', '/api/admin/users', token)).status).toBe(200);
      const next = await request(enforcing.getHttpServer())
        .post('/api/auth/login')
        .send({ email: admin.email, password: admin.password });
      expect(next.body.data.requires_otp).toBe(true);
    });

    it('leaves an account that is not privileged alone', async () => {
      const user = await registerUser(enforcing);
      expect((await call('get', '/api/account/sessions', user.tokens.access_token)).status).toBe(200);
    });
  });
});
