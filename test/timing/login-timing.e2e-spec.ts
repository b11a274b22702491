import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser, uniqueEmail, type RegisteredUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';

const TRIES = 50;
const MAX_RELATIVE_DIFFERENCE = 0.2;

/**
 * A login for an unknown email costs the same Argon2 work as a wrong password for a known one
 * (a dummy verify), so its latency does not tell an attacker which addresses have accounts.
 * Measured with the service's default Argon2 parameters, so that hashing dominates, and compared
 * as a ratio of medians within one run, never against a wall-clock threshold.
 */
describe('login timing does not reveal whether an account exists', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  let known: RegisteredUser;

  const fixture = useTestApp({
    env: {
      // `undefined` removes the tests' cheap setting: the service's defaults apply.
      ARGON2_MEMORY_KIB: undefined,
      ARGON2_ITERATIONS: undefined,
      // 50 wrong passwords for one account must not lock it or hit a rate limit.
      LOCKOUT_THRESHOLD: '1000',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_GLOBAL_PER_MINUTE: '1000000',
    },
    // Listening once keeps supertest from opening a server per request, a cost that is pure noise here.
    listen: true,
  });

  beforeAll(async () => {
    ({ app, db } = fixture);
    known = await registerUser(app);
  }, 60_000);

  /** One login's latency in milliseconds, after checking it was refused as a wrong credential. */
  async function timedLogin(email: string): Promise<number> {
    const started = process.hrtime.bigint();
    const res = await request(app.getHttpServer())
      .post('/api/auth/login')
      .send({ email, password: 'Wrong-Password-for-timing-1' });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_CREDENTIALS');
    return elapsed;
  }

  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  };

  it('hashes with the default parameters here (so the comparison measures the real cost)', async () => {
    const [{ password_hash: hash }] = await db.query(`SELECT password_hash FROM users WHERE id = $1`, [known.id]);
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it(`keeps the median latency of an unknown email within ${MAX_RELATIVE_DIFFERENCE * 100}% of a known email's with a wrong password`, async () => {
    // Warm up both paths (JIT, connection pool, the lazily made dummy hash); not measured.
    for (let i = 0; i < 3; i += 1) {
      await timedLogin(known.email);
      await timedLogin(uniqueEmail('nobody'));
    }

    const knownTimes: number[] = [];
    const unknownTimes: number[] = [];
    for (let i = 0; i < TRIES; i += 1) {
      // Interleaved, and the order alternates, so drift in the machine's load affects both alike.
      if (i % 2 === 0) {
        knownTimes.push(await timedLogin(known.email));
        unknownTimes.push(await timedLogin(uniqueEmail('nobody')));
      } else {
        unknownTimes.push(await timedLogin(uniqueEmail('nobody')));
        knownTimes.push(await timedLogin(known.email));
      }
    }

    const knownMedian = median(knownTimes);
    const unknownMedian = median(unknownTimes);
    const ratio = Math.abs(unknownMedian - knownMedian) / knownMedian;
    process.stdout.write(
      `\nlogin timing: known email + wrong password median ${knownMedian.toFixed(1)} ms, ` +
        `unknown email median ${unknownMedian.toFixed(1)} ms, relative difference ${(ratio * 100).toFixed(1)}% ` +
        `(${TRIES} tries each)\n`,
    );
    expect(ratio).toBeLessThanOrEqual(MAX_RELATIVE_DIFFERENCE);
  }, 300_000);
});
