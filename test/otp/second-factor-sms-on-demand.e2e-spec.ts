import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser, sleep, uniqueMobile, type RegisteredUser } from '../support/auth-factory.js';
import { SmsReceiver, wrongCode } from '../support/sms-receiver.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';

/**
 * A second-factor challenge that offers an app or a passkey sends no SMS until the client asks
 * for one (`POST /api/auth/otp/send-2fa`, at most 3 per temp token, under the account lockout); an
 * SMS-only challenge sends at once. The per-mobile hourly cap never applies to the account's own
 * mobile in a second-factor step.
 */
const HOURLY_CAP = 3;
const THRESHOLD = 5;
const STEP_MS = 30_000;

describe('second-factor SMS only when one is wanted', () => {
  const fixture = useTestApp({
    sms: true,
    env: { ...SMS_LOGINS, OTP_HOURLY_CAP: String(HOURLY_CAP), LOCKOUT_THRESHOLD: String(THRESHOLD) },
  });
  let db: DataSource;
  let sms: SmsReceiver;
  let app: NestFastifyApplication;
  beforeAll(() => void ({ db, sms, app } = fixture));

  const server = () => app.getHttpServer();
  const login = (user: { email: string; password: string }) =>
    request(server()).post('/api/auth/login').send({ email: user.email, password: user.password });
  const send2fa = (body: object) => request(server()).post('/api/auth/otp/send-2fa').send(body);
  const verify2fa = (body: object) => request(server()).post('/api/auth/otp/verify-2fa').send(body);

  async function admin(): Promise<RegisteredUser & { mobile: string }> {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = 'admin'`, [
      user.id,
    ]);
    return { ...user, mobile };
  }

  /** Enrols an authenticator app; answers it (codes computed from the secret, as the app would). */
  async function enrol(user: RegisteredUser): Promise<TOTP> {
    const intoStep = Date.now() % STEP_MS;
    if (intoStep > STEP_MS - 8_000) await sleep(STEP_MS - intoStep + 500);
    const started = await request(server())
      .post('/api/account/totp')
      .set('authorization', `Bearer ${user.tokens.access_token}`);
    expect(started.status).toBe(200);
    const totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
    const confirmed = await request(server())
      .post('/api/account/totp/confirm')
      .set('authorization', `Bearer ${user.tokens.access_token}`)
      .send({ code: totp.generate({ timestamp: Date.now() - STEP_MS }) });
    expect(confirmed.status).toBe(200);
    return totp;
  }

  /** Gives the outbox time to deliver anything queued, then counts what reached the mobile. */
  async function delivered(mobile: string): Promise<number> {
    await sleep(300);
    return sms.to(mobile).length;
  }

  it('lets an administrator with an app sign in twenty times without an SMS and without a 429', async () => {
    const user = await admin();
    const totp = await enrol(user);
    for (let round = 0; round < 20; round++) {
      const challenge = await login(user);
      expect(challenge.status).toBe(200);
      expect(challenge.body.data).toMatchObject({ requires_otp: true, methods: ['totp', 'sms', 'recovery'] });
      expect(challenge.body.data.mobile_masked).toEqual(expect.any(String));
      // The app's codes are accepted once each: the last round signs in with the app's current one.
      if (round === 19) {
        const signedIn = await verify2fa({
          temp_token: challenge.body.data.temp_token,
          method: 'totp',
          code: totp.generate(),
        });
        expect(signedIn.status).toBe(200);
        expect(typeof signedIn.body.data.access_token).toBe('string');
      }
    }
    expect(await delivered(user.mobile)).toBe(0);
  });

  it('texts the code when the client asks with the temp token, and that code completes the sign-in', async () => {
    const user = await admin();
    await enrol(user);
    const challenge = await login(user);
    expect(await delivered(user.mobile)).toBe(0);
    const sent = await send2fa({ temp_token: challenge.body.data.temp_token });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toEqual({
      expires_in: expect.any(Number),
      mobile_masked: challenge.body.data.mobile_masked,
    });
    expect(sent.body.data.expires_in).toBeGreaterThan(0);
    expect(sent.body.data.expires_in).toBeLessThanOrEqual(300);
    const signedIn = await verify2fa({
      temp_token: challenge.body.data.temp_token,
      method: 'sms',
      code: await sms.codeFor(user.mobile),
    });
    expect(signedIn.status).toBe(200);
    expect(typeof signedIn.body.data.access_token).toBe('string');
  });

  it('refuses an SMS code for a challenge that sent none: no code was texted, so none is right', async () => {
    const user = await admin();
    await enrol(user);
    const challenge = await login(user);
    const guess = await verify2fa({ temp_token: challenge.body.data.temp_token, method: 'sms', code: '000000' });
    expect(guess.status).toBe(401);
    expect(guess.body.error.code).toBe('INVALID_OTP');
  });

  it('keeps the wrong answers of the challenge when a new SMS is asked for: asking buys no guesses', async () => {
    const user = await admin();
    await enrol(user);
    const challenge = await login(user);
    const token = challenge.body.data.temp_token;
    expect((await send2fa({ temp_token: token })).status).toBe(200);
    const first = await sms.codeFor(user.mobile);
    for (let i = 0; i < 2; i++) {
      const wrong = await verify2fa({ temp_token: token, method: 'sms', code: wrongCode(first) });
      expect(wrong.status).toBe(401);
    }
    expect((await send2fa({ temp_token: token })).status).toBe(200);
    const second = await sms.codeFor(user.mobile);
    const last = await verify2fa({ temp_token: token, method: 'sms', code: wrongCode(second) });
    expect(last.status).toBe(401);
    expect(last.body.error.message).toBe('The code is wrong, and no attempts remain: sign in again.');
    const after = await send2fa({ temp_token: token });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('OTP_ATTEMPTS_EXCEEDED');
  });

  it('sends at most 3 codes for one temp token, even asked for in parallel', async () => {
    const user = await admin();
    await enrol(user);
    const challenge = await login(user);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => send2fa({ temp_token: challenge.body.data.temp_token })),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([200, 200, 200, 429, 429]);
    for (const refused of answers.filter((res) => res.status === 429)) {
      expect(refused.body.error.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    await sms.waitFor(user.mobile, 3);
    expect(await delivered(user.mobile)).toBe(3);
  });

  it('sends nothing while the account is locked (429)', async () => {
    const user = await admin();
    await enrol(user);
    const challenge = await login(user);
    await db.query(
      `INSERT INTO login_failures (subject, failures, locked_until, last_attempt_at) VALUES ($1, $2, now() + interval '10 minutes', now())
       ON CONFLICT (subject) DO UPDATE SET failures = EXCLUDED.failures, locked_until = EXCLUDED.locked_until`,
      [`user:${user.id}`, THRESHOLD],
    );
    const refused = await send2fa({ temp_token: challenge.body.data.temp_token });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(await delivered(user.mobile)).toBe(0);
  });

  it('refuses a temp token that is not one (401), and a challenge that offers no SMS (400)', async () => {
    const forged = await send2fa({ temp_token: 'not-a-token' });
    expect(forged.status).toBe(401);
    expect(forged.body.error.code).toBe('UNAUTHENTICATED');
    expect((await send2fa({})).status).toBe(400);
    expect((await send2fa({ temp_token: 'x', mobile: '+15550000000' })).status).toBe(400);

    const withoutMobile = await registerUser(app);
    await enrol(withoutMobile);
    const challenge = await login(withoutMobile);
    expect(challenge.body.data.methods).toEqual(['totp', 'recovery']);
    const refused = await send2fa({ temp_token: challenge.body.data.temp_token });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('texts an SMS-only challenge at once, past the per-mobile hourly cap too', async () => {
    const user = await admin();
    for (let round = 0; round < HOURLY_CAP + 2; round++) {
      const challenge = await login(user);
      expect(challenge.status).toBe(200);
      expect(challenge.body.data.requires_otp).toBe(true);
      expect(challenge.body.data.methods).toBeUndefined();
      await sms.waitFor(user.mobile, round + 1);
    }
    const challenge = await login(user);
    const latest = await sms.waitFor(user.mobile, HOURLY_CAP + 3);
    const signedIn = await verify2fa({
      temp_token: challenge.body.data.temp_token,
      code: /\b(\d{6})\b/.exec(latest.message)![1],
    });
    expect(signedIn.status).toBe(200);
  });
});
