import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser, setCookies, uniqueMobile, type RegisteredUser } from '../support/auth-factory.js';
import type { TestDatabase } from '../support/databases.mjs';
import { SmsReceiver, wrongCode } from '../support/sms-receiver.js';
import { createTestApp } from '../support/test-app.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';

describe('admin two-factor sign-in (both login methods on)', () => {
  const fixture = useTestApp({ sms: true, env: SMS_LOGINS });
  let database: TestDatabase;
  let db: DataSource;
  let sms: SmsReceiver;
  let app: NestFastifyApplication;
  beforeAll(() => void ({ database, db, sms, app } = fixture));

  const server = () => app.getHttpServer();
  const login = (body: object) => request(server()).post('/api/auth/login').send(body);
  const verify2fa = (temp_token: string, code: string) =>
    request(server()).post('/api/auth/otp/verify-2fa').send({ temp_token, code });

  async function admin(withMobile = true): Promise<RegisteredUser & { mobile: string }> {
    const mobile = uniqueMobile();
    const user = await registerUser(app, withMobile ? { mobile } : {});
    await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = 'admin'`, [
      user.id,
    ]);
    return { ...user, mobile };
  }

  async function challenge(user: { email: string; password: string; mobile: string }) {
    const res = await login({ email: user.email, password: user.password });
    expect(res.status).toBe(200);
    return { res, tempToken: res.body.data.temp_token as string, code: await sms.codeFor(user.mobile) };
  }

  it('answers a correct admin password with a challenge, and the SMS code completes the sign-in', async () => {
    const user = await admin();
    const { res, tempToken, code } = await challenge(user);
    expect(res.body.data).toEqual({
      requires_otp: true,
      temp_token: expect.any(String),
      mobile_masked: expect.any(String),
    });
    expect(res.body.data.mobile_masked).toBe(
      `${user.mobile.slice(0, 3)}${'*'.repeat(user.mobile.length - 5)}${user.mobile.slice(-2)}`,
    );
    expect(setCookies(res).access_token).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain('access_token');

    const done = await verify2fa(tempToken, code);
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ token_type: 'Bearer', user: { id: user.id, email: user.email } });
    expect(typeof done.body.data.access_token).toBe('string');
    expect(typeof done.body.data.refresh_token).toBe('string');
    expect(setCookies(done).access_token).toBeDefined();
  });

  it('asks for the second factor on a mobile + password login too', async () => {
    const user = await admin();
    const res = await login({ mobile: user.mobile, password: user.password });
    expect(res.body.data.requires_otp).toBe(true);
  });

  it('lets an admin without a mobile, and a non-admin with one, sign in directly', async () => {
    const noMobile = await admin(false);
    const direct = await login({ email: noMobile.email, password: noMobile.password });
    expect(direct.body.data.access_token).toBeDefined();
    const plain = await registerUser(app, { mobile: uniqueMobile() });
    expect((await login({ email: plain.email, password: plain.password })).body.data.access_token).toBeDefined();
  });

  it('counts wrong codes, ends the challenge at the third, and refuses the right code then', async () => {
    const user = await admin();
    const { tempToken, code } = await challenge(user);
    for (const remaining of [2, 1, 0]) {
      const res = await verify2fa(tempToken, wrongCode(code));
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'INVALID_OTP', details: [{ attempts_remaining: remaining }] });
    }
    const right = await verify2fa(tempToken, code);
    expect(right.status).toBe(401);
    expect(right.body.error.code).toBe('OTP_ATTEMPTS_EXCEEDED');
  });

  it('takes as many wrong codes as OTP_MAX_ATTEMPTS says: 5, then OTP_ATTEMPTS_EXCEEDED', async () => {
    const fiveAttempts = await createTestApp({
      env: {
        DATABASE_URL: database.url,
        AUTH_MOBILE_OTP: 'true',
        SMS_TRANSPORT: 'webhook',
        SMS_WEBHOOK_URL: sms.url,
        OTP_MAX_ATTEMPTS: '5',
      },
    });
    try {
      const user = await admin();
      const signIn = await request(fiveAttempts.getHttpServer())
        .post('/api/auth/login')
        .send({ email: user.email, password: user.password });
      const tempToken = signIn.body.data.temp_token as string;
      const code = await sms.codeFor(user.mobile);
      const answer = (attempt: string) =>
        request(fiveAttempts.getHttpServer())
          .post('/api/auth/otp/verify-2fa')
          .send({ temp_token: tempToken, code: attempt });
      for (const remaining of [4, 3, 2, 1, 0]) {
        const res = await answer(wrongCode(code));
        expect(res.status).toBe(401);
        expect(res.body.error).toMatchObject({ code: 'INVALID_OTP', details: [{ attempts_remaining: remaining }] });
      }
      const right = await answer(code);
      expect(right.status).toBe(401);
      expect(right.body.error.code).toBe('OTP_ATTEMPTS_EXCEEDED');
    } finally {
      await fiveAttempts.close();
    }
  });

  it('refuses a used temp token', async () => {
    const user = await admin();
    const { tempToken, code } = await challenge(user);
    expect((await verify2fa(tempToken, code)).status).toBe(200);
    const again = await verify2fa(tempToken, code);
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('OTP_EXPIRED');
  });

  it('refuses an expired temp token', async () => {
    const user = await admin();
    const { tempToken, code } = await challenge(user);
    const claims = JSON.parse(Buffer.from(tempToken.split('.')[1], 'base64url').toString());
    const expired = jwt.sign({ ...claims, iat: claims.iat - 600, exp: claims.iat - 300 }, TEST_JWT_SECRET, {
      algorithm: 'HS256',
      header: { alg: 'HS256', typ: '2fa+jwt' },
    });
    const res = await verify2fa(expired, code);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('OTP_EXPIRED');
  });

  it('gives the temp token a 5-minute lifetime and the 2fa type', async () => {
    const user = await admin();
    const { tempToken } = await challenge(user);
    const claims = JSON.parse(Buffer.from(tempToken.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: user.id, email: user.email, token_type: '2fa' });
    expect(claims.exp - claims.iat).toBe(300);
  });

  it('refuses an expired code', async () => {
    const shortLived = await createTestApp({
      env: {
        DATABASE_URL: database.url,
        AUTH_MOBILE_OTP: 'true',
        SMS_TRANSPORT: 'webhook',
        SMS_WEBHOOK_URL: sms.url,
        OTP_EXPIRY: '1',
      },
    });
    try {
      const user = await admin();
      const res = await request(shortLived.getHttpServer())
        .post('/api/auth/login')
        .send({ email: user.email, password: user.password });
      const code = await sms.codeFor(user.mobile);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const late = await request(shortLived.getHttpServer())
        .post('/api/auth/otp/verify-2fa')
        .send({ temp_token: res.body.data.temp_token, code });
      expect(late.status).toBe(401);
      expect(late.body.error.code).toBe('OTP_EXPIRED');
    } finally {
      await shortLived.close();
    }
  });

  it('refuses the temp token anywhere else: as a Bearer token and as a refresh token', async () => {
    const user = await admin();
    const { tempToken } = await challenge(user);
    const me = await request(server()).get('/api/auth/me').set('authorization', `Bearer ${tempToken}`);
    expect(me.status).toBe(401);
    expect(me.body.error.code).toBe('UNAUTHENTICATED');
    const refresh = await request(server()).post('/api/auth/refresh').send({ refresh_token: tempToken });
    expect(refresh.status).toBe(401);
  });

  it('refuses a forged temp token and an access token in its place', async () => {
    const user = await admin();
    const { tempToken, code } = await challenge(user);
    const claims = JSON.parse(Buffer.from(tempToken.split('.')[1], 'base64url').toString());
    const forged = jwt.sign(claims, 'another-secret-another-secret-another', { algorithm: 'HS256' });
    expect((await verify2fa(forged, code)).body.error.code).toBe('UNAUTHENTICATED');
    const plain = await registerUser(app);
    expect((await verify2fa(plain.tokens.access_token, code)).body.error.code).toBe('UNAUTHENTICATED');
  });

  it('judges at most 3 of 30 parallel attempts with one temp token, and never opens two sessions', async () => {
    const user = await admin();
    const { tempToken, code } = await challenge(user);
    const [{ before }] = await db.query(`SELECT count(*)::int AS before FROM sessions WHERE user_id = $1`, [user.id]);
    const codes = Array.from({ length: 30 }, (_, i) =>
      i === 29 ? code : String((Number(code) + i + 1) % 1_000_000).padStart(6, '0'),
    );
    const results = await Promise.all(codes.map((attempt) => verify2fa(tempToken, attempt)));
    const successes = results.filter((res) => res.status === 200);
    expect(successes.length).toBeLessThanOrEqual(1);
    const judged = results.filter((res) => res.body.error?.code === 'INVALID_OTP' || res.status === 200);
    expect(judged.length).toBeLessThanOrEqual(3);
    const [row] = await db.query(
      `SELECT attempts FROM one_time_codes WHERE user_id = $1 AND purpose = 'second_factor'`,
      [user.id],
    );
    expect(row.attempts).toBeLessThanOrEqual(3);
    const [{ after }] = await db.query(`SELECT count(*)::int AS after FROM sessions WHERE user_id = $1`, [user.id]);
    expect(after - before).toBe(successes.length);
  });

  it('refuses an admin signing in with a mobile code alone (403 LOGIN_METHOD_DISABLED)', async () => {
    const user = await admin();
    expect((await request(server()).post('/api/auth/send-otp').send({ mobile: user.mobile })).status).toBe(200);
    const res = await request(server())
      .post('/api/auth/verify-otp')
      .send({ mobile: user.mobile, otp: await sms.codeFor(user.mobile) });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('LOGIN_METHOD_DISABLED');
  });

  it('answers a wrong password like any other failed login, with no challenge and no SMS', async () => {
    const user = await admin();
    const before = sms.to(user.mobile).length;
    const res = await login({ email: user.email, password: `${user.password}-wrong` });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_CREDENTIALS');
    expect(sms.to(user.mobile).length).toBe(before);
  });
});
