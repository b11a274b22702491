import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import {
  agedCopy,
  decodeJwt,
  login,
  refresh,
  registerUser,
  sleep,
  type RegisteredUser,
  uniqueMobile,
} from '../support/auth-factory.js';
import type { SmsReceiver } from '../support/sms-receiver.js';
import { wrongCode } from '../support/sms-receiver.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';

const STEP_MS = 30_000;
const now = () => Math.floor(Date.now() / 1000);

/** Waits out the last seconds of a time step, so codes of adjacent steps stay valid through a test. */
async function awayFromStepEdge(): Promise<void> {
  const intoStep = Date.now() % STEP_MS;
  if (intoStep > STEP_MS - 8_000) await sleep(STEP_MS - intoStep + 500);
}

describe('fresh authentication (auth_time, amr, re-authentication)', () => {
  const fixture = useTestApp({
    sms: true,
    env: { ...SMS_LOGINS, SERVICE_CLIENTS: 'reports:reports-secret-0123456789-abcdefghijkl' },
  });
  let app: NestFastifyApplication;
  let db: DataSource;
  let sms: SmsReceiver;
  beforeAll(() => void ({ app, db, sms } = fixture));

  const server = () => app.getHttpServer();
  const authed = (token: string) => ({
    get: (path: string) => request(server()).get(path).set('authorization', `Bearer ${token}`),
    post: (path: string, body: object = {}) =>
      request(server()).post(path).set('authorization', `Bearer ${token}`).send(body),
    delete: (path: string) => request(server()).delete(path).set('authorization', `Bearer ${token}`).send({}),
  });
  const claimsOf = (token: string) => decodeJwt(token).payload as Record<string, unknown>;

  async function enrol(user: RegisteredUser): Promise<TOTP> {
    await awayFromStepEdge();
    const started = await authed(user.tokens.access_token).post('/api/account/totp');
    expect(started.status).toBe(200);
    const device = URI.parse(started.body.data.otpauth_uri) as TOTP;
    const confirmed = await authed(user.tokens.access_token).post('/api/account/totp/confirm', {
      code: device.generate({ timestamp: Date.now() - STEP_MS }),
    });
    expect(confirmed.status).toBe(200);
    return device;
  }

  async function makeAdmin(user: RegisteredUser): Promise<void> {
    await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = 'admin'`, [
      user.id,
    ]);
  }

  describe('claims', () => {
    it('stamps registration and a password login with amr ["pwd"] and auth_time now', async () => {
      const before = now();
      const user = await registerUser(app);
      const registered = claimsOf(user.tokens.access_token);
      expect(registered.amr).toEqual(['pwd']);
      expect(registered.auth_time).toBeGreaterThanOrEqual(before - 1);
      expect(registered.auth_time).toBeLessThanOrEqual(now());

      const res = await login(app, { email: user.email, password: user.password });
      expect(res.status).toBe(200);
      expect(claimsOf(res.body.data.access_token)).toMatchObject({ amr: ['pwd'], auth_time: expect.any(Number) });
    });

    it('stamps an SMS login with amr ["sms"]', async () => {
      const mobile = uniqueMobile();
      await registerUser(app, { mobile });
      expect((await request(server()).post('/api/auth/send-otp').send({ mobile })).status).toBe(200);
      const res = await request(server())
        .post('/api/auth/verify-otp')
        .send({ mobile, otp: await sms.codeFor(mobile) });
      expect(res.status).toBe(200);
      expect(claimsOf(res.body.data.access_token).amr).toEqual(['sms']);
    });

    it('stamps two-factor sign-ins with both factors and mfa', async () => {
      const mobile = uniqueMobile();
      const admin = await registerUser(app, { mobile });
      await makeAdmin(admin);
      const challenge = await login(app, { email: admin.email, password: admin.password });
      expect(challenge.body.data.requires_otp).toBe(true);
      const bySms = await request(server())
        .post('/api/auth/otp/verify-2fa')
        .send({ temp_token: challenge.body.data.temp_token, code: await sms.codeFor(mobile) });
      expect(bySms.status).toBe(200);
      expect(claimsOf(bySms.body.data.access_token).amr).toEqual(['pwd', 'sms', 'mfa']);

      const user = await registerUser(app);
      const device = await enrol(user);
      const appChallenge = await login(app, { email: user.email, password: user.password });
      const byApp = await request(server())
        .post('/api/auth/otp/verify-2fa')
        .send({ temp_token: appChallenge.body.data.temp_token, code: device.generate() });
      expect(byApp.status).toBe(200);
      expect(claimsOf(byApp.body.data.access_token).amr).toEqual(['pwd', 'otp', 'mfa']);
    });

    it('keeps auth_time and amr across refreshes, in the session row', async () => {
      const user = await registerUser(app);
      const first = claimsOf(user.tokens.access_token);
      await sleep(1100);
      const rotated = await refresh(app, user.tokens.refresh_token);
      expect(rotated.status).toBe(200);
      const second = claimsOf(rotated.body.data.access_token);
      expect(second.auth_time).toBe(first.auth_time);
      expect(second.amr).toEqual(['pwd']);
      expect(second.iat).toBeGreaterThan(first.iat as number);
      const [row] = await db.query(`SELECT auth_time, amr FROM sessions WHERE id = $1`, [first.sid]);
      expect(Math.floor(new Date(row.auth_time).getTime() / 1000)).toBe(first.auth_time);
      expect(row.amr).toEqual(['pwd']);
    });

    it('answers auth_time and amr at introspection', async () => {
      const user = await registerUser(app);
      const res = await request(server())
        .post('/api/auth/introspect')
        .auth('reports', 'reports-secret-0123456789-abcdefghijkl')
        .send({ token: user.tokens.access_token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        active: true,
        auth_time: claimsOf(user.tokens.access_token).auth_time,
        amr: ['pwd'],
      });
    });
  });

  describe('POST /api/account/reauthenticate', () => {
    it('takes the password and answers a token pair for the same session with auth_time now', async () => {
      const user = await registerUser(app);
      const stale = await agedCopy(user.tokens.access_token, 3600);
      const res = await authed(stale).post('/api/account/reauthenticate', { password: user.password });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual([
        'access_token',
        'expires_in',
        'refresh_token',
        'token_type',
        'user',
      ]);
      const claims = claimsOf(res.body.data.access_token);
      expect(claims.sid).toBe(claimsOf(user.tokens.access_token).sid);
      expect(claims.amr).toEqual(['pwd']);
      expect(Math.abs((claims.auth_time as number) - now())).toBeLessThanOrEqual(2);
      expect(String(res.headers['set-cookie'])).toContain('access_token=');
      // The new refresh token keeps the session's new proof; the one before it is a replay.
      const rotated = await refresh(app, res.body.data.refresh_token);
      expect(rotated.status).toBe(200);
      expect(claimsOf(rotated.body.data.access_token).auth_time).toBe(claims.auth_time);
      expect((await refresh(app, user.tokens.refresh_token)).status).toBe(401);
    });

    it('refuses a wrong password with 401 INVALID_CREDENTIALS and a wrong code with 401 INVALID_OTP', async () => {
      const user = await registerUser(app);
      const wrongPassword = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
        password: 'Not-The-Password-1',
      });
      expect(wrongPassword.status).toBe(401);
      expect(wrongPassword.body.error.code).toBe('INVALID_CREDENTIALS');
      const wrongApp = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
        method: 'totp',
        code: '123456',
      });
      expect(wrongApp.status).toBe(401);
      expect(wrongApp.body.error.code).toBe('INVALID_OTP');
    });

    it('validates the body: unknown fields, a method without its code, a password beside a method', async () => {
      const user = await registerUser(app);
      for (const body of [
        {},
        { password: user.password, extra: 1 },
        { method: 'totp' },
        { method: 'passkeys', code: '123456' },
        { method: 'totp', code: '123456', password: user.password },
      ]) {
        const res = await authed(user.tokens.access_token).post('/api/account/reauthenticate', body);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
      }
    });

    it('takes an app code, keeping mfa after a two-factor sign-in, and a recovery code', async () => {
      const user = await registerUser(app);
      await awayFromStepEdge();
      const started = await authed(user.tokens.access_token).post('/api/account/totp');
      const device = URI.parse(started.body.data.otpauth_uri) as TOTP;
      const confirmed = await authed(user.tokens.access_token).post('/api/account/totp/confirm', {
        code: device.generate({ timestamp: Date.now() - STEP_MS }),
      });
      const recoveryCodes: string[] = confirmed.body.data.recovery_codes;

      // After a password-only session, an app code stands alone.
      const byApp = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
        method: 'totp',
        code: device.generate(),
      });
      expect(byApp.status).toBe(200);
      expect(claimsOf(byApp.body.data.access_token).amr).toEqual(['otp']);

      const challenge = await login(app, { email: user.email, password: user.password });
      const signedIn = await request(server())
        .post('/api/auth/otp/verify-2fa')
        .send({ temp_token: challenge.body.data.temp_token, code: recoveryCodes[0], method: 'recovery' });
      expect(signedIn.status).toBe(200);
      const byRecovery = await authed(signedIn.body.data.access_token).post('/api/account/reauthenticate', {
        method: 'recovery',
        code: recoveryCodes[1],
      });
      expect(byRecovery.status).toBe(200);
      expect(claimsOf(byRecovery.body.data.access_token).amr).toEqual(['pwd', 'otp', 'mfa']);
      // A password re-authentication of that two-factor session is one factor again.
      const byPassword = await authed(byRecovery.body.data.access_token).post('/api/account/reauthenticate', {
        password: user.password,
      });
      expect(claimsOf(byPassword.body.data.access_token).amr).toEqual(['pwd']);
      // A recovery code works once.
      const reused = await authed(byPassword.body.data.access_token).post('/api/account/reauthenticate', {
        method: 'recovery',
        code: recoveryCodes[1],
      });
      expect(reused.status).toBe(401);
      expect(reused.body.error.code).toBe('INVALID_OTP');
    });

    it("sends a code to the account's own mobile, bound to the asking session", async () => {
      const mobile = uniqueMobile();
      const user = await registerUser(app, { mobile });
      const asked = await authed(user.tokens.access_token).post('/api/account/reauthenticate', { method: 'sms' });
      expect(asked.status).toBe(200);
      expect(asked.body.data).toEqual({ expires_in: expect.any(Number) });
      const code = await sms.codeFor(mobile);

      // It is not a sign-in code.
      const signIn = await request(server()).post('/api/auth/verify-otp').send({ mobile, otp: code });
      expect(signIn.status).toBe(401);

      // Another session of the same account cannot use it.
      const other = await login(app, { email: user.email, password: user.password });
      const elsewhere = await authed(other.body.data.access_token).post('/api/account/reauthenticate', {
        method: 'sms',
        code,
      });
      expect(elsewhere.status).toBe(401);
      expect(elsewhere.body.error.code).toBe('INVALID_OTP');

      const wrong = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
        method: 'sms',
        code: wrongCode(code),
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('INVALID_OTP');
      const res = await authed(user.tokens.access_token).post('/api/account/reauthenticate', { method: 'sms', code });
      expect(res.status).toBe(200);
      expect(claimsOf(res.body.data.access_token).amr).toEqual(['sms']);
      expect(claimsOf(res.body.data.access_token).sid).toBe(claimsOf(user.tokens.access_token).sid);

      const noMobile = await registerUser(app);
      const refused = await authed(noMobile.tokens.access_token).post('/api/account/reauthenticate', {
        method: 'sms',
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_FAILED');
    });

    it('counts wrong proofs toward the account lockout (429), and a sign-in is then refused too', async () => {
      const user = await registerUser(app);
      for (let i = 0; i < 10; i++) {
        const res = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
          password: `Wrong-Password-${i}`,
        });
        expect(res.status).toBe(401);
      }
      const locked = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
        password: user.password,
      });
      expect(locked.status).toBe(429);
      expect(locked.body.error.code).toBe('RATE_LIMITED');
      expect((await login(app, { email: user.email, password: user.password })).status).toBe(429);
    });

    it('gives back the attempt of a right proof without clearing earlier failures', async () => {
      const user = await registerUser(app);
      for (let i = 0; i < 9; i++) {
        await authed(user.tokens.access_token).post('/api/account/reauthenticate', { password: `Wrong-Password-${i}` });
      }
      const right = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
        password: user.password,
      });
      expect(right.status).toBe(200);
      const [row] = await db.query(`SELECT failures FROM login_failures WHERE subject = $1`, [`user:${user.id}`]);
      expect(row.failures).toBe(9);
      // The tenth failure locks.
      await authed(right.body.data.access_token).post('/api/account/reauthenticate', { password: 'Wrong-Password-x' });
      expect((await login(app, { email: user.email, password: user.password })).status).toBe(429);
    });
  });

  describe('the SMS proof under the send-otp limits', () => {
    const limited = useTestApp({
      database: 'seeded',
      sms: true,
      env: { AUTH_EMAIL_PASSWORD: 'true', AUTH_MOBILE_OTP: 'true', OTP_RESEND_SECONDS: '60' },
    });

    it('keeps the per-number cooldown, shared with send-otp', async () => {
      const mobile = uniqueMobile();
      const user = await registerUser(limited.app, { mobile });
      const ask = () =>
        request(limited.app.getHttpServer())
          .post('/api/account/reauthenticate')
          .set('authorization', `Bearer ${user.tokens.access_token}`)
          .send({ method: 'sms' });
      expect((await ask()).status).toBe(200);
      const again = await ask();
      expect(again.status).toBe(429);
      expect(again.body.error.code).toBe('RATE_LIMITED');
      expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
      const sendOtp = await request(limited.app.getHttpServer()).post('/api/auth/send-otp').send({ mobile });
      expect(sendOtp.status).toBe(429);
    });
  });
});
