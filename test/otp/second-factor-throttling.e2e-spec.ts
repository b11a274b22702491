import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser, uniqueMobile, type RegisteredUser } from '../support/auth-factory.js';
import { SmsReceiver, wrongCode } from '../support/sms-receiver.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';

/**
 * The second factor is an authenticator like the password: one live challenge per account, wrong
 * codes count toward the account lockout, which bounds it; its SMS spend the mobile's budget for
 * send-otp, but the per-mobile cap never stops the account's own second factor.
 */
const THRESHOLD = 5;
const HOURLY_CAP = 3;

describe('second factor throttling', () => {
  const fixture = useTestApp({
    sms: true,
    env: {
      ...SMS_LOGINS,
      OTP_HOURLY_CAP: String(HOURLY_CAP),
      LOCKOUT_THRESHOLD: String(THRESHOLD),
      LOCKOUT_SECONDS: '600',
    },
  });
  let db: DataSource;
  let sms: SmsReceiver;
  let app: NestFastifyApplication;
  beforeAll(() => void ({ db, sms, app } = fixture));

  const server = () => app.getHttpServer();
  const login = (user: { email: string; password: string }) =>
    request(server()).post('/api/auth/login').send({ email: user.email, password: user.password });
  const verify2fa = (temp_token: string, code: string) =>
    request(server()).post('/api/auth/otp/verify-2fa').send({ temp_token, code });

  async function admin(): Promise<RegisteredUser & { mobile: string }> {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = 'admin'`, [
      user.id,
    ]);
    return { ...user, mobile };
  }

  it('keeps one live challenge per account: a new login ends the previous temp token (401 OTP_EXPIRED)', async () => {
    const user = await admin();
    const first = await login(user);
    expect(first.status).toBe(200);
    const firstCode = await sms.codeFor(user.mobile);
    const second = await login(user);
    expect(second.status).toBe(200);
    const secondCode = await sms.codeFor(user.mobile);

    const stale = await verify2fa(first.body.data.temp_token, firstCode);
    expect(stale.status).toBe(401);
    expect(stale.body.error.code).toBe('OTP_EXPIRED');
    const fresh = await verify2fa(second.body.data.temp_token, secondCode);
    expect(fresh.status).toBe(200);
    expect(typeof fresh.body.data.access_token).toBe('string');
  });

  it('leaves exactly one live challenge after parallel logins of one account', async () => {
    const user = await admin();
    const results = await Promise.all(Array.from({ length: HOURLY_CAP }, () => login(user)));
    expect(results.map((res) => res.status)).toEqual(Array(HOURLY_CAP).fill(200));
    const [{ live }] = await db.query(
      `SELECT count(*)::int AS live FROM one_time_codes WHERE user_id = $1 AND purpose = 'second_factor' AND ended_at IS NULL`,
      [user.id],
    );
    expect(live).toBe(1);
  });

  it('answers the password step with a challenge even when the SMS gateway fails', async () => {
    const user = await admin();
    sms.failing = true;
    try {
      const res = await login(user);
      expect(res.status).toBe(200);
      expect(res.body.data.requires_otp).toBe(true);
    } finally {
      sms.failing = false;
    }
  });

  it('counts wrong codes of every challenge toward the account lockout: then even the right password is 429', async () => {
    const user = await admin();
    let guesses = 0;
    let lockedAt: request.Response | undefined;
    for (let challenge = 0; challenge < 10 && !lockedAt; challenge++) {
      const res = await login(user);
      if (res.status === 429) {
        lockedAt = res;
        break;
      }
      expect(res.status).toBe(200);
      const code = await sms.codeFor(user.mobile);
      for (let attempt = 0; attempt < 3; attempt++) {
        const wrong = await verify2fa(res.body.data.temp_token, wrongCode(code));
        if (wrong.status === 429) {
          lockedAt = wrong;
          break;
        }
        expect(wrong.status).toBe(401);
        expect(wrong.body.error.code).toBe('INVALID_OTP');
        guesses++;
      }
    }
    expect(lockedAt).toBeDefined();
    expect(guesses).toBeLessThanOrEqual(THRESHOLD);

    const locked = await login(user);
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('RATE_LIMITED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    const [event] = await db.query(`SELECT details FROM audit_events WHERE type = '2fa.lockout' AND actor_id = $1`, [
      user.id,
    ]);
    expect(event).toBeDefined();
  });

  it('refuses the code of a live challenge once the account is locked', async () => {
    const user = await admin();
    const res = await login(user);
    const code = await sms.codeFor(user.mobile);
    await db.query(
      `INSERT INTO login_failures (subject, failures, locked_until, last_attempt_at) VALUES ($1, $2, now() + interval '10 minutes', now())
       ON CONFLICT (subject) DO UPDATE SET failures = EXCLUDED.failures, locked_until = EXCLUDED.locked_until`,
      [`user:${user.id}`, THRESHOLD],
    );
    const refused = await verify2fa(res.body.data.temp_token, code);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
  });

  it('clears the count once the second factor succeeds', async () => {
    const user = await admin();
    for (let round = 0; round < THRESHOLD; round++) {
      const res = await login(user);
      expect(res.status).toBe(200);
      const code = await sms.codeFor(user.mobile);
      if (round === 0) expect((await verify2fa(res.body.data.temp_token, wrongCode(code))).status).toBe(401);
      expect((await verify2fa(res.body.data.temp_token, code)).status).toBe(200);
      await db.query(`DELETE FROM one_time_codes WHERE user_id = $1`, [user.id]);
    }
  });

  it("never applies the per-mobile hourly cap to the account's own mobile: past it the password step still texts a code", async () => {
    const user = await admin();
    for (let i = 0; i < HOURLY_CAP + 1; i++) {
      const res = await login(user);
      expect(res.status).toBe(200);
      expect(res.body.data.requires_otp).toBe(true);
      await sms.waitFor(user.mobile, i + 1);
    }
    // The mobile's budget for codes anyone can ask for is spent by the sign-in codes all the same.
    const sendOtp = await request(server()).post('/api/auth/send-otp').send({ mobile: user.mobile });
    expect(sendOtp.status).toBe(429);
    // A wrong password still answers 401.
    const wrong = await login({ email: user.email, password: `${user.password}-wrong` });
    expect(wrong.status).toBe(401);
  });

  it('stores the queued SMS encrypted: the outbox never holds the code or the mobile in clear', async () => {
    const user = await admin();
    sms.delayMs = 500;
    try {
      const res = await login(user);
      expect(res.status).toBe(200);
      // The SMS of the challenge (the registration's verification mail is the account's other message).
      const queued = await db.query(`SELECT * FROM outbox_messages WHERE user_id = $1 AND channel = 'sms'`, [user.id]);
      const code = await sms.codeFor(user.mobile);
      expect(queued).toHaveLength(1);
      const dump = JSON.stringify(queued);
      const payload = queued[0].payload as Buffer | null;
      for (const secret of [code, user.mobile]) {
        expect(dump).not.toContain(secret);
        if (payload) {
          expect(payload.toString('latin1')).not.toContain(secret);
          expect(payload.toString('hex')).not.toContain(Buffer.from(secret).toString('hex'));
        }
      }
    } finally {
      sms.delayMs = 0;
    }
    // Wiped once delivered.
    const deadline = Date.now() + 5000;
    let row: { status: string; payload: Buffer | null } | undefined;
    do {
      [row] = await db.query(`SELECT status, payload FROM outbox_messages WHERE user_id = $1 AND channel = 'sms'`, [
        user.id,
      ]);
      if (row?.status === 'sent') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } while (Date.now() < deadline);
    expect(row).toEqual({ status: 'sent', payload: null });
  });
});
