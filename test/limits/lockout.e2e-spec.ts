import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import request, { type Response } from 'supertest';
import type { DataSource } from 'typeorm';
import {
  login,
  registerUser,
  sha256Hex,
  sleep,
  uniqueEmail,
  uniqueMobile,
  type RegisteredUser,
} from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { expectRateLimited, repeat } from './limits-kit.js';

/**
 * The account lockout, on a database of its own (its short LOCKOUT_SECONDS also shortens the
 * window in which OTP failures carry over, which other files must not see). Two instances share
 * the database without Redis: the lockout lives in PostgreSQL.
 */
const THRESHOLD = 3;
const LOCKOUT_SECONDS = 2;
const WRONG = 'Wrong-Password-000';

describe('account lockout after consecutive failed password logins', () => {
  const fixture = useTestApp({
    env: { LOCKOUT_THRESHOLD: String(THRESHOLD), LOCKOUT_SECONDS: String(LOCKOUT_SECONDS) },
    instances: 2,
  });
  let db: DataSource;
  let first: NestFastifyApplication;
  let second: NestFastifyApplication;
  beforeAll(() => {
    ({ db } = fixture);
    [first, second] = fixture.apps;
  });

  const fail = async (app: NestFastifyApplication, body: object, times = THRESHOLD) => {
    const sent: number[] = [];
    for (let i = 0; i < times; i++) sent.push((await login(app, { ...body, password: WRONG })).status);
    return sent;
  };
  const withPassword = (user: RegisteredUser, app = first) =>
    login(app, { email: user.email, password: user.password });
  /** Waits until a lockout that answered `res` is over. */
  const waitOut = (res: Response) => sleep(Number(res.headers['retry-after']) * 1000 + 300);

  it('refuses the right password with 429 once the threshold is reached, until LOCKOUT_SECONDS have passed', async () => {
    const user = await registerUser(first);
    expect(await fail(first, { email: user.email })).toEqual(repeat(401, THRESHOLD));

    const locked = await withPassword(user);
    expectRateLimited(locked, LOCKOUT_SECONDS);
    expect(locked.body.error.message).toMatch(/failed sign-in attempts/i);
    expectRateLimited(await login(first, { email: user.email, password: WRONG }), LOCKOUT_SECONDS);

    await waitOut(locked);
    const after = await withPassword(user);
    expect(after.status).toBe(200);
    expect(after.body.data.access_token).toEqual(expect.any(String));
  });

  it('starts the count over after a successful login', async () => {
    const user = await registerUser(first);
    expect(await fail(first, { email: user.email }, THRESHOLD - 1)).toEqual(repeat(401, THRESHOLD - 1));
    expect((await withPassword(user)).status).toBe(200);
    expect(await fail(first, { email: user.email }, THRESHOLD - 1)).toEqual(repeat(401, THRESHOLD - 1));
    expect((await withPassword(user)).status).toBe(200);
    // Consecutive failures only: the threshold is reached again only by THRESHOLD in a row.
    expect(await fail(first, { email: user.email })).toEqual(repeat(401, THRESHOLD));
    expectRateLimited(await withPassword(user), LOCKOUT_SECONDS);
  });

  it('counts the account, whether a login names it by email or by mobile', async () => {
    const user = await registerUser(first, { mobile: uniqueMobile() });
    expect(await fail(first, { mobile: user.mobile }, THRESHOLD - 1)).toEqual(repeat(401, THRESHOLD - 1));
    expect(await fail(first, { email: user.email.toUpperCase() }, 1)).toEqual([401]);
    expectRateLimited(await withPassword(user), LOCKOUT_SECONDS);
    expectRateLimited(await login(first, { mobile: user.mobile, password: user.password }), LOCKOUT_SECONDS);
  });

  it('answers an unknown email exactly as a known one, before and during the lockout', async () => {
    const user = await registerUser(first);
    const unknown = uniqueEmail('nobody');
    const known: Response[] = [];
    const stranger: Response[] = [];
    for (let i = 0; i <= THRESHOLD; i++) {
      known.push(await login(first, { email: user.email, password: WRONG }));
      stranger.push(await login(first, { email: unknown, password: WRONG }));
    }
    expect(known.map((res) => res.status)).toEqual([...repeat(401, THRESHOLD), 429]);
    expect(stranger.map((res) => res.status)).toEqual(known.map((res) => res.status));
    for (let i = 0; i <= THRESHOLD; i++) expect(stranger[i].body).toEqual(known[i].body);
    expectRateLimited(known[THRESHOLD], LOCKOUT_SECONDS);
    expectRateLimited(stranger[THRESHOLD], LOCKOUT_SECONDS);
  });

  it('stores no email or mobile of an unknown account in the clear', async () => {
    const unknown = uniqueEmail('typo');
    const mobile = uniqueMobile();
    await fail(first, { email: unknown }, 1);
    await fail(first, { mobile }, 1);
    const rows: { subject: string }[] = await db.query(`SELECT subject FROM login_failures`);
    expect(rows.length).toBeGreaterThan(0);
    for (const { subject } of rows) {
      expect(subject).toMatch(/^(user:[0-9a-f-]{36}|email:[0-9a-f]{64}|mobile:[0-9a-f]{64})$/);
    }
  });

  it('still answers forgot-password while the account is locked', async () => {
    const user = await registerUser(first);
    await fail(first, { email: user.email });
    expectRateLimited(await withPassword(user), LOCKOUT_SECONDS);
    const res = await request(first.getHttpServer()).post('/api/auth/forgot-password').send({ email: user.email });
    expect(res.status).toBe(200);
    expect(res.body.data.message).toEqual(expect.any(String));
  });

  it('lifts the lockout when the password is reset', async () => {
    const user = await registerUser(first);
    await fail(first, { email: user.email });
    expectRateLimited(await withPassword(user), LOCKOUT_SECONDS);
    // The token the reset mail would carry (mail delivery is tested in test/auth/password-reset).
    const token = randomBytes(32).toString('base64url');
    await db.query(
      `INSERT INTO password_reset_tokens (user_id, token_hash, expires_at) VALUES ($1, $2, now() + interval '10 minutes')`,
      [user.id, sha256Hex(token)],
    );
    const password = 'Fresh-Harbour-Lantern-77';
    const reset = await request(first.getHttpServer())
      .post('/api/auth/reset-password')
      .send({ token, password, password_confirmation: password });
    expect(reset.status).toBe(200);
    expect((await login(first, { email: user.email, password })).status).toBe(200);
  });

  it('holds on every instance: failures on one lock the account on the other', async () => {
    const user = await registerUser(first);
    expect(await fail(first, { email: user.email }, 2)).toEqual([401, 401]);
    expect(await fail(second, { email: user.email }, THRESHOLD - 2)).toEqual(repeat(401, THRESHOLD - 2));
    expectRateLimited(await withPassword(user, second), LOCKOUT_SECONDS);
    expectRateLimited(await withPassword(user, first), LOCKOUT_SECONDS);
  });

  it('counts parallel wrong passwords: no more than LOCKOUT_THRESHOLD of them are checked', async () => {
    const user = await registerUser(first);
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => login(i % 2 ? second : first, { email: user.email, password: WRONG })),
    );
    const sent = responses.map((res) => res.status).sort();
    expect(sent).toEqual([...repeat(401, THRESHOLD), ...repeat(429, 12 - THRESHOLD)]);
    for (const res of responses.filter((r) => r.status === 429)) expectRateLimited(res, LOCKOUT_SECONDS);
    expectRateLimited(await withPassword(user), LOCKOUT_SECONDS);
  });
});
