import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { registerUser, setCookies, sleep, uniqueMobile } from '../support/auth-factory.js';
import type { DataSource } from 'typeorm';
import type { TestDatabase } from '../support/databases.mjs';
import { useTestApp } from '../support/fixture.js';
import { wrongCode, type SmsReceiver } from '../support/sms-receiver.js';
import { createTestApp } from '../support/test-app.js';
import { createDatabase } from '../support/test-database.js';

const OTP_ENV = { AUTH_MOBILE_OTP: 'true', OTP_RESEND_SECONDS: '0', OTP_HOURLY_CAP: '1000' };

describe('mobile + SMS code sign-in', () => {
  const fixture = useTestApp({ sms: true, env: OTP_ENV });
  let database: TestDatabase;
  let db: DataSource;
  let sms: SmsReceiver;
  let app: NestFastifyApplication;
  beforeAll(() => void ({ database, db, sms, app } = fixture));

  /** The variables of another instance beside `app`, on its database and SMS receiver. */
  const otpEnv = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: database.url,
    SMS_TRANSPORT: 'webhook',
    SMS_WEBHOOK_URL: sms.url,
    ...OTP_ENV,
    ...extra,
  });

  const sendOtp = (mobile: string, target = app) =>
    request(target.getHttpServer()).post('/api/auth/send-otp').send({ mobile });
  const verifyOtp = (mobile: string, otp: string, target = app) =>
    request(target.getHttpServer()).post('/api/auth/verify-otp').send({ mobile, otp });

  async function userWithMobile() {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    return { ...user, mobile };
  }

  it('sends a code by SMS and signs in with it', async () => {
    const user = await userWithMobile();
    const sent = await sendOtp(user.mobile);
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ success: true, data: { expires_in: 300 } });
    const code = await sms.codeFor(user.mobile);
    expect(code).toMatch(/^\d{6}$/);

    const res = await verifyOtp(user.mobile, code);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      token_type: 'Bearer',
      expires_in: 900,
      user: { id: user.id, email: user.email },
    });
    expect(setCookies(res).access_token).toBeDefined();
    const me = await request(app.getHttpServer())
      .get('/api/auth/me')
      .set('authorization', `Bearer ${res.body.data.access_token}`);
    expect(me.body.data.id).toBe(user.id);
  });

  it('accepts the mobile written with spaces and dashes', async () => {
    const user = await userWithMobile();
    const spaced = `${user.mobile.slice(0, 3)} ${user.mobile.slice(3, 7)}-${user.mobile.slice(7)}`;
    expect((await sendOtp(spaced)).status).toBe(200);
    expect((await verifyOtp(spaced, await sms.codeFor(user.mobile))).status).toBe(200);
  });

  it('refuses a used code (replay)', async () => {
    const user = await userWithMobile();
    await sendOtp(user.mobile);
    const code = await sms.codeFor(user.mobile);
    expect((await verifyOtp(user.mobile, code)).status).toBe(200);
    const replay = await verifyOtp(user.mobile, code);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('OTP_EXPIRED');
  });

  it('refuses a code presented with another mobile', async () => {
    const [a, b] = [await userWithMobile(), await userWithMobile()];
    await sendOtp(a.mobile);
    await sendOtp(b.mobile);
    const codeOfA = await sms.codeFor(a.mobile);
    const res = await verifyOtp(b.mobile, codeOfA);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_OTP');
    // a's code still works for a.
    expect((await verifyOtp(a.mobile, codeOfA)).status).toBe(200);
  });

  it('voids the previous code when a new one is sent', async () => {
    const user = await userWithMobile();
    await sendOtp(user.mobile);
    const first = await sms.codeFor(user.mobile);
    await sendOtp(user.mobile);
    const second = await sms.codeFor(user.mobile);
    if (first !== second) {
      const old = await verifyOtp(user.mobile, first);
      expect(old.status).toBe(401);
    }
    expect((await verifyOtp(user.mobile, second)).status).toBe(200);
  });

  it('burns a code after 3 wrong ones: the right code is refused afterwards', async () => {
    const user = await userWithMobile();
    await sendOtp(user.mobile);
    const code = await sms.codeFor(user.mobile);
    for (const remaining of [2, 1, 0]) {
      const res = await verifyOtp(user.mobile, wrongCode(code));
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_OTP');
      expect(res.body.error.details).toEqual([{ attempts_remaining: remaining }]);
    }
    const right = await verifyOtp(user.mobile, code);
    expect(right.status).toBe(401);
    expect(right.body.error.code).toBe('OTP_ATTEMPTS_EXCEEDED');
  });

  it('keeps the wrong-attempt count of a mobile across new codes', async () => {
    const user = await userWithMobile();
    await sendOtp(user.mobile);
    const first = await sms.codeFor(user.mobile);
    await verifyOtp(user.mobile, wrongCode(first));
    await verifyOtp(user.mobile, wrongCode(first));
    await sendOtp(user.mobile);
    const second = await sms.codeFor(user.mobile);
    const res = await verifyOtp(user.mobile, wrongCode(second));
    expect(res.body.error.details).toEqual([{ attempts_remaining: 0 }]);
    expect((await verifyOtp(user.mobile, second)).body.error.code).toBe('OTP_ATTEMPTS_EXCEEDED');
  });

  it('answers an unknown mobile exactly like a known one, and sends it nothing', async () => {
    const known = await userWithMobile();
    const unknown = uniqueMobile();
    const [a, b] = [await sendOtp(known.mobile), await sendOtp(unknown)];
    expect(b.status).toBe(a.status);
    expect(b.body).toEqual(a.body);
    await sms.waitFor(known.mobile);
    expect(sms.to(unknown)).toEqual([]);
    const guess = await verifyOtp(unknown, '123456');
    expect(guess.status).toBe(401);
    expect(guess.body.error.code).toBe('INVALID_OTP');
  });

  it.each([
    ['a 5-digit code', { otp: '12345' }],
    ['a 7-digit code', { otp: '1234567' }],
    ['letters', { otp: 'abcdef' }],
    ['a number', { otp: 123456 }],
    ['a 7-character mobile', { mobile: '1234567' }],
    ['a 16-character mobile', { mobile: '+123456789012345' }],
    ['an unknown field', { extra: true }],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_name, change) => {
    const res = await request(app.getHttpServer())
      .post('/api/auth/verify-otp')
      .send({ mobile: '+4917690000123', otp: '123456', ...change });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });

  it.each([['1234567'], ['+123456789012345'], ['not a number']])('refuses send-otp for %j with 400', async (mobile) => {
    expect((await sendOtp(mobile)).status).toBe(400);
  });

  it('stores only a keyed hash of the code', async () => {
    const user = await userWithMobile();
    await sendOtp(user.mobile);
    const code = await sms.codeFor(user.mobile);
    const rows = await db.query(`SELECT * FROM one_time_codes WHERE purpose = 'sms_sign_in' AND recipient = $1`, [
      user.mobile,
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0].code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  it('refuses an expired code', async () => {
    const shortLived = await createTestApp({ env: otpEnv({ OTP_EXPIRY: '1' }) });
    try {
      const user = await userWithMobile();
      await sendOtp(user.mobile, shortLived);
      await sleep(1500);
      const res = await verifyOtp(user.mobile, await sms.codeFor(user.mobile), shortLived);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('OTP_EXPIRED');
    } finally {
      await shortLived.close();
    }
  });

  describe('against SMS pumping', () => {
    it('enforces the per-mobile cooldown with 429 and Retry-After, for unknown mobiles too', async () => {
      const cooled = await createTestApp({ env: otpEnv({ OTP_RESEND_SECONDS: '60' }) });
      try {
        for (const mobile of [(await userWithMobile()).mobile, uniqueMobile()]) {
          expect((await sendOtp(mobile, cooled)).status).toBe(200);
          const again = await sendOtp(mobile, cooled);
          expect(again.status).toBe(429);
          expect(again.body.error.code).toBe('RATE_LIMITED');
          expect(Number(again.headers['retry-after'])).toBeGreaterThan(50);
          expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(60);
        }
      } finally {
        await cooled.close();
      }
    });

    it('caps codes per mobile and per client address each hour', async () => {
      // A database of its own: the client address of every test here is the same.
      const fresh = await createDatabase('seeded');
      const capped = await createTestApp({ env: otpEnv({ OTP_HOURLY_CAP: '2', DATABASE_URL: fresh.url }) });
      try {
        const mobile = uniqueMobile();
        expect((await sendOtp(mobile, capped)).status).toBe(200);
        expect((await sendOtp(mobile, capped)).status).toBe(200);
        const third = await sendOtp(mobile, capped);
        expect(third.status).toBe(429);
        expect(third.headers['retry-after']).toBeDefined();
        // The same client, other mobiles: the address cap counts every code this hour.
        let refused = 0;
        for (let i = 0; i < 3; i++) if ((await sendOtp(uniqueMobile(), capped)).status === 429) refused++;
        expect(refused).toBe(3);
      } finally {
        await capped.close();
        await fresh.drop();
      }
    });
  });
});

describe('mobile + SMS code sign-in switched off', () => {
  // A database of its own: the first app on a database stores the login-method settings it starts with.
  const fixture = useTestApp({ database: 'seeded', env: { AUTH_MOBILE_OTP: 'false' } });

  it('refuses send-otp and verify-otp with 403 LOGIN_METHOD_DISABLED', async () => {
    const { app } = fixture;
    for (const res of [
      await request(app.getHttpServer()).post('/api/auth/send-otp').send({ mobile: '+4917690000123' }),
      await request(app.getHttpServer()).post('/api/auth/verify-otp').send({ mobile: '+4917690000123', otp: '123456' }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('LOGIN_METHOD_DISABLED');
    }
  });
});
