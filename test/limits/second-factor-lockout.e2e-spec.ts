import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser, uniqueMobile, type RegisteredUser } from '../support/auth-factory.js';
import { wrongCode, type SmsReceiver } from '../support/sms-receiver.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';

/**
 * The lockout counts failures only: a right password whose second factor is pending gives back
 * the attempt it counted (an SMS that came late, a closed tab is not an attack), and keeps the
 * failures before it; wrong second-factor codes count, across challenges.
 */
describe('the account lockout and pending second factors', () => {
  const fixture = useTestApp({
    sms: true,
    // Twelve challenges to one number within the hour: the per-number SMS cap is not what is tested here.
    env: { ...SMS_LOGINS, OTP_HOURLY_CAP: '100', LOCKOUT_THRESHOLD: '10', LOCKOUT_SECONDS: '600' },
  });
  let app: NestFastifyApplication;
  let db: DataSource;
  let sms: SmsReceiver;
  beforeAll(() => void ({ app, db, sms } = fixture));

  const login = (user: { email: string; password: string }) =>
    request(app.getHttpServer()).post('/api/auth/login').send({ email: user.email, password: user.password });
  const verify2fa = (temp_token: string, code: string) =>
    request(app.getHttpServer()).post('/api/auth/otp/verify-2fa').send({ temp_token, code });

  async function admin(): Promise<RegisteredUser & { mobile: string }> {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = 'admin'`, [
      user.id,
    ]);
    return { ...user, mobile };
  }

  const failures = async (userId: string): Promise<number> => {
    const [row] = await db.query(`SELECT failures FROM login_failures WHERE subject = $1`, [`user:${userId}`]);
    return row?.failures ?? 0;
  };

  it('lets an administrator who started twelve logins without finishing complete the thirteenth', async () => {
    const user = await admin();
    for (let i = 0; i < 12; i++) {
      const res = await login(user);
      expect(res.status).toBe(200);
      expect(res.body.data.requires_otp).toBe(true);
      await sms.waitFor(user.mobile, i + 1);
    }
    expect(await failures(user.id)).toBe(0);
    const thirteenth = await login(user);
    expect(thirteenth.status).toBe(200);
    const code = await sms.codeFor(user.mobile);
    const done = await verify2fa(thirteenth.body.data.temp_token, code);
    expect(done.status).toBe(200);
    expect(done.body.data.access_token).toEqual(expect.any(String));
  });

  it('keeps the failures before a right password whose second factor is pending', async () => {
    const user = await admin();
    for (let i = 0; i < 3; i++) {
      expect((await login({ email: user.email, password: `Wrong-Password-${i}` })).status).toBe(401);
    }
    expect((await login(user)).status).toBe(200);
    expect(await failures(user.id)).toBe(3);
  });

  it('locks after ten wrong codes across challenges (429), the right password included', async () => {
    const user = await admin();
    let wrong = 0;
    while (wrong < 10) {
      const challenge = await login(user);
      expect(challenge.status).toBe(200);
      const code = await sms.codeFor(user.mobile);
      // Three wrong codes burn a temp token; the next challenge takes the rest.
      for (let i = 0; i < 3 && wrong < 10; i++, wrong++) {
        const res = await verify2fa(challenge.body.data.temp_token, wrongCode(code));
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('INVALID_OTP');
      }
    }
    const locked = await login(user);
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('RATE_LIMITED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });
});
