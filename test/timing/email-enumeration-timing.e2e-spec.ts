import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { registerUser, uniqueEmail, type RegisteredUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';

const TRIES = 30;
/** Database work of a few milliseconds, not Argon2: a looser bound than the login's, still a ratio of medians. */
const MAX_RELATIVE_DIFFERENCE = 0.5;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * `email-code` and `verify-email/resend` answer a known and an unknown address with the same body
 * after the same work (one transaction, one queued message), so neither the answer nor its time
 * tells which addresses have accounts.
 */
describe('email-code and verification resend: the time does not reveal an account', () => {
  let app: NestFastifyApplication;
  let known: RegisteredUser;

  const fixture = useTestApp({
    env: {
      AUTH_EMAIL_CODE: 'true',
      // Every request does its full work: no interval or cap, no rate limit.
      OTP_RESEND_SECONDS: '0',
      OTP_HOURLY_CAP: '100000',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_GLOBAL_PER_MINUTE: '1000000',
    },
    database: 'seeded',
    listen: true,
  });

  beforeAll(async () => {
    ({ app } = fixture);
    known = await registerUser(app);
  });

  async function timed(path: string, email: string): Promise<{ ms: number; body: unknown }> {
    const started = process.hrtime.bigint();
    const res = await request(app.getHttpServer()).post(path).send({ email });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(res.status).toBe(200);
    return { ms, body: res.body };
  }

  it.each(['/api/auth/email-code', '/api/auth/verify-email/resend'])('%s', async (path) => {
    // Warm both paths first: the first requests pay for connections and compiled statements.
    await timed(path, known.email);
    await timed(path, uniqueEmail('warm'));
    const knownTimes: number[] = [];
    const unknownTimes: number[] = [];
    for (let i = 0; i < TRIES; i++) {
      // Interleaved, so a slow moment of the machine falls on both.
      const a = await timed(path, known.email);
      const b = await timed(path, uniqueEmail('nobody'));
      expect(b.body).toEqual(a.body);
      knownTimes.push(a.ms);
      unknownTimes.push(b.ms);
    }
    const [k, u] = [median(knownTimes), median(unknownTimes)];
    expect(Math.abs(k - u) / Math.max(k, u)).toBeLessThan(MAX_RELATIVE_DIFFERENCE);
  });
});
