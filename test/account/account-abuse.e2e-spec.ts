import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomInt } from 'node:crypto';
import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser, sleep, uniqueEmail, uniqueMobile, type RegisteredUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import type { SmsReceiver } from '../support/sms-receiver.js';
import { resetTokenFrom, type SmtpSink } from '../support/smtp-sink.js';

const APP_URL = 'https://accounts.example.test';
const STEP_MS = 30_000;
const NEW_PASSWORD = 'Saffron-Glacier-Piston-64';

/** A client address of its own for each scenario (the apps trust X-Forwarded-For), so per-address counts start at zero. */
function freshAddress(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

/** Waits out the last seconds of a time step, so codes of adjacent steps stay valid. */
async function awayFromStepEdge(): Promise<void> {
  const intoStep = Date.now() % STEP_MS;
  if (intoStep > STEP_MS - 8_000) await sleep(STEP_MS - intoStep + 500);
}

describe('the account holder under attack', () => {
  const fixture = useTestApp({
    smtp: true,
    sms: true,
    env: { APP_URL, AUTH_EMAIL_PASSWORD: 'true', AUTH_MOBILE_OTP: 'true', TRUST_PROXY: '1', OTP_HOURLY_CAP: '2' },
    instances: [{ OTP_RESEND_SECONDS: '60' }, { OTP_RESEND_SECONDS: '0' }],
  });
  let sink: SmtpSink;
  let sms: SmsReceiver;
  /** The contract's cooldown, with a small hourly cap. */
  let cooldownApp: NestFastifyApplication;
  /** No cooldown, the same small cap: reaches the cap without waiting. */
  let capApp: NestFastifyApplication;
  let db: DataSource;
  beforeAll(() => {
    ({ smtp: sink, sms, db } = fixture);
    [cooldownApp, capApp] = fixture.apps;
  });

  const client = (app: NestFastifyApplication, address: string) => ({
    changeMobile: (user: RegisteredUser, mobile: string) =>
      request(app.getHttpServer())
        .post('/api/account/mobile')
        .set('x-forwarded-for', address)
        .set('authorization', `Bearer ${user.tokens.access_token}`)
        .send({ mobile }),
    sendOtp: (mobile: string) =>
      request(app.getHttpServer()).post('/api/auth/send-otp').set('x-forwarded-for', address).send({ mobile }),
  });

  function expectRateLimited(res: request.Response, maxSeconds: number): void {
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(res.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
  }

  describe('a mobile change is under the same cooldown and caps as send-otp', () => {
    it('a second code to the same number within the cooldown is 429 with Retry-After', async () => {
      const user = await registerUser(cooldownApp);
      const mobile = uniqueMobile();
      expect((await client(cooldownApp, freshAddress()).changeMobile(user, mobile)).status).toBe(200);
      // Another address and another account change nothing: the cooldown is the number's.
      expectRateLimited(await client(cooldownApp, freshAddress()).changeMobile(user, mobile), 60);
      const other = await registerUser(cooldownApp);
      expectRateLimited(await client(cooldownApp, freshAddress()).changeMobile(other, mobile), 60);
      await sms.codeFor(mobile);
      await sleep(300);
      expect(sms.to(mobile)).toHaveLength(1);
    });

    it('send-otp then a mobile change to that number within the cooldown is 429', async () => {
      const user = await registerUser(cooldownApp);
      const mobile = uniqueMobile();
      expect((await client(cooldownApp, freshAddress()).sendOtp(mobile)).status).toBe(200);
      expectRateLimited(await client(cooldownApp, freshAddress()).changeMobile(user, mobile), 60);
    });

    it('a mobile change then send-otp to that number within the cooldown is 429', async () => {
      const user = await registerUser(cooldownApp);
      const mobile = uniqueMobile();
      expect((await client(cooldownApp, freshAddress()).changeMobile(user, mobile)).status).toBe(200);
      expectRateLimited(await client(cooldownApp, freshAddress()).sendOtp(mobile), 60);
    });

    it('past the hourly cap of one number, mobile changes are 429', async () => {
      const user = await registerUser(capApp);
      const mobile = uniqueMobile();
      expect((await client(capApp, freshAddress()).changeMobile(user, mobile)).status).toBe(200);
      expect((await client(capApp, freshAddress()).changeMobile(user, mobile)).status).toBe(200);
      expectRateLimited(await client(capApp, freshAddress()).changeMobile(user, mobile), 3600);
    });

    it('send-otp and mobile changes spend one hourly budget per number', async () => {
      const user = await registerUser(capApp);
      const mobile = uniqueMobile();
      expect((await client(capApp, freshAddress()).sendOtp(mobile)).status).toBe(200);
      expect((await client(capApp, freshAddress()).changeMobile(user, mobile)).status).toBe(200);
      expectRateLimited(await client(capApp, freshAddress()).sendOtp(mobile), 3600);
      expectRateLimited(await client(capApp, freshAddress()).changeMobile(user, mobile), 3600);

      const second = uniqueMobile();
      expect((await client(capApp, freshAddress()).changeMobile(user, second)).status).toBe(200);
      expect((await client(capApp, freshAddress()).sendOtp(second)).status).toBe(200);
      expectRateLimited(await client(capApp, freshAddress()).sendOtp(second), 3600);
    });

    it('past the hourly cap of one client address, mobile changes and send-otp are 429, whichever came first', async () => {
      const users = [await registerUser(capApp), await registerUser(capApp), await registerUser(capApp)];
      const mobileFirst = client(capApp, freshAddress());
      expect((await mobileFirst.changeMobile(users[0], uniqueMobile())).status).toBe(200);
      expect((await mobileFirst.changeMobile(users[1], uniqueMobile())).status).toBe(200);
      expectRateLimited(await mobileFirst.changeMobile(users[2], uniqueMobile()), 3600);
      expectRateLimited(await mobileFirst.sendOtp(uniqueMobile()), 3600);

      const otpFirst = client(capApp, freshAddress());
      expect((await otpFirst.sendOtp(uniqueMobile())).status).toBe(200);
      expect((await otpFirst.changeMobile(users[2], uniqueMobile())).status).toBe(200);
      expectRateLimited(await otpFirst.changeMobile(users[2], uniqueMobile()), 3600);
      expectRateLimited(await otpFirst.sendOtp(uniqueMobile()), 3600);
    });
  });

  describe('the authenticator app and recovery codes', () => {
    const server = () => cooldownApp.getHttpServer();
    const authed = (user: RegisteredUser) => ({
      post: (path: string, body: object = {}) =>
        request(server()).post(path).set('authorization', `Bearer ${user.tokens.access_token}`).send(body),
      delete: (path: string, body: object = {}) =>
        request(server()).delete(path).set('authorization', `Bearer ${user.tokens.access_token}`).send(body),
    });
    const login = (user: RegisteredUser) =>
      request(server()).post('/api/auth/login').send({ email: user.email, password: user.password });
    const verify2fa = (body: object) => request(server()).post('/api/auth/otp/verify-2fa').send(body);

    async function startEnrolment(user: RegisteredUser): Promise<TOTP> {
      const started = await authed(user).post('/api/account/totp');
      expect(started.status).toBe(200);
      return URI.parse(started.body.data.otpauth_uri) as TOTP;
    }

    async function enrol(user: RegisteredUser): Promise<{ device: TOTP; recoveryCodes: string[] }> {
      await awayFromStepEdge();
      const device = await startEnrolment(user);
      const confirmed = await authed(user).post('/api/account/totp/confirm', {
        code: device.generate({ timestamp: Date.now() - STEP_MS }),
      });
      expect(confirmed.status).toBe(200);
      return { device, recoveryCodes: confirmed.body.data.recovery_codes };
    }

    it('a second enrolment cannot replace an active app; a password or a wrong code does not remove it', async () => {
      const user = await registerUser(cooldownApp);
      const { device } = await enrol(user);

      const again = await authed(user).post('/api/account/totp');
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('CONFLICT');
      const confirmAgain = await authed(user).post('/api/account/totp/confirm', { code: device.generate() });
      expect(confirmAgain.status).toBe(409);
      expect(confirmAgain.body.error.code).toBe('CONFLICT');
      const wrongCode = await authed(user).post('/api/account/reauthenticate', {
        method: 'totp',
        code: String((Number(device.generate()) + 7) % 1_000_000).padStart(6, '0'),
      });
      expect(wrongCode.status).toBe(401);
      expect(wrongCode.body.error.code).toBe('INVALID_OTP');
      const wrongPassword = await authed(user).post('/api/account/reauthenticate', { password: 'Not-The-Password-1' });
      expect(wrongPassword.status).toBe(401);
      expect(wrongPassword.body.error.code).toBe('INVALID_CREDENTIALS');
      // The password alone is one factor: it does not remove the other.
      expect((await authed(user).delete('/api/account/totp')).status).toBe(403);

      // The first app is still the one the login asks for.
      const challenge = await login(user);
      expect(challenge.body.data.requires_otp).toBe(true);
      const done = await verify2fa({
        temp_token: challenge.body.data.temp_token,
        code: device.generate({ timestamp: Date.now() + STEP_MS }),
        method: 'totp',
      });
      expect(done.status).toBe(200);
    });

    it('a new enrolment replaces a pending one: the first secret no longer confirms', async () => {
      const user = await registerUser(cooldownApp);
      await awayFromStepEdge();
      const first = await startEnrolment(user);
      const second = await startEnrolment(user);
      expect(second.secret.base32).not.toBe(first.secret.base32);
      const stale = await authed(user).post('/api/account/totp/confirm', { code: first.generate() });
      expect(stale.status).toBe(401);
      expect(stale.body.error.code).toBe('INVALID_OTP');
      const confirmed = await authed(user).post('/api/account/totp/confirm', { code: second.generate() });
      expect(confirmed.status).toBe(200);
    });

    it("one account's recovery code does not sign in another account", async () => {
      const owner = await registerUser(cooldownApp);
      const target = await registerUser(cooldownApp);
      const { recoveryCodes } = await enrol(owner);
      const { recoveryCodes: targetCodes } = await enrol(target);

      const challenge = await login(target);
      for (const code of recoveryCodes.slice(0, 2)) {
        const res = await verify2fa({ temp_token: challenge.body.data.temp_token, code, method: 'recovery' });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('INVALID_OTP');
        expect(res.body.data).toBeUndefined();
      }
      // The owner's codes were not spent by the attempt, and the target's own code still works.
      const ownerChallenge = await login(owner);
      expect(
        (
          await verify2fa({
            temp_token: ownerChallenge.body.data.temp_token,
            code: recoveryCodes[0],
            method: 'recovery',
          })
        ).status,
      ).toBe(200);
      const targetDone = await verify2fa({
        temp_token: challenge.body.data.temp_token,
        code: targetCodes[0],
        method: 'recovery',
      });
      expect(targetDone.status).toBe(200);
      expect(targetDone.body.data.user.id).toBe(target.id);
    });
  });

  describe('a pending change does not outlive the identity it was asked under', () => {
    const server = () => cooldownApp.getHttpServer();
    const as = (user: RegisteredUser) => (path: string, body: object) =>
      request(server())
        .post(path)
        .set('x-forwarded-for', freshAddress())
        .set('authorization', `Bearer ${user.tokens.access_token}`)
        .send(body);
    const confirmEmail = (token: string) => request(server()).post('/api/account/email/confirm').send({ token });
    const linkToken = (text: string) => /\/confirm-email\?token=([A-Za-z0-9_-]+)/.exec(text)![1];
    const me = (user: RegisteredUser) =>
      request(server()).get('/api/account').set('authorization', `Bearer ${user.tokens.access_token}`);

    it('an email change link is void once the holder changes their password, even in the same session', async () => {
      const user = await registerUser(cooldownApp);
      const newEmail = uniqueEmail('pending');
      expect((await as(user)('/api/account/email', { email: newEmail })).status).toBe(200);
      const token = linkToken((await sink.waitForMail(newEmail)).text);
      const changed = await as(user)('/api/account/password', {
        current_password: user.password,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      expect(changed.status).toBe(200);

      const res = await confirmEmail(token);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('CONFIRMATION_TOKEN_INVALID');
      expect((await me(user)).body.data.email).toBe(user.email);
    });

    it('an email change link is void once the password is reset', async () => {
      const user = await registerUser(cooldownApp);
      const newEmail = uniqueEmail('pending');
      expect((await as(user)('/api/account/email', { email: newEmail })).status).toBe(200);
      const token = linkToken((await sink.waitForMail(newEmail)).text);
      await sink.waitForMail(user.email);
      expect((await request(server()).post('/api/auth/forgot-password').send({ email: user.email })).status).toBe(200);
      // The second mail to the old address: the first was the notice of the requested change.
      const resetToken = resetTokenFrom(await sink.waitForMail(user.email, 2), APP_URL);
      const reset = await request(server())
        .post('/api/auth/reset-password')
        .send({ token: resetToken, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
      expect(reset.status).toBe(200);

      const res = await confirmEmail(token);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('CONFIRMATION_TOKEN_INVALID');
      const [row] = await db.query(`SELECT email FROM users WHERE id = $1`, [user.id]);
      expect(row.email).toBe(user.email);
    });

    it('a pending mobile change code is void once the holder changes their password', async () => {
      const user = await registerUser(cooldownApp);
      const mobile = uniqueMobile();
      expect((await as(user)('/api/account/mobile', { mobile })).status).toBe(200);
      const code = await sms.codeFor(mobile);
      const changed = await as(user)('/api/account/password', {
        current_password: user.password,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      expect(changed.status).toBe(200);

      const res = await as(user)('/api/account/mobile/confirm', { code });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('OTP_EXPIRED');
      expect((await me(user)).body.data.mobile).toBeNull();
    });
  });
});
