import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { registerUser, uniqueEmail, uniqueMobile, type RegisteredUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';

const TRIES = 30;
const MAX_RELATIVE_DIFFERENCE = 0.5;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * A change to a taken address or number does the work a free one does (the same statements, a
 * stand-in message), so its latency does not tell whose address it is. Compared as a ratio of
 * medians of interleaved requests within one run, never against a wall-clock threshold.
 */
describe('an account change to a taken address or number takes the time a free one takes', () => {
  const fixture = useTestApp({ env: { OTP_RESEND_SECONDS: '0', OTP_HOURLY_CAP: '1000' }, listen: true });
  let app: NestFastifyApplication;
  let asker: RegisteredUser;
  let holder: RegisteredUser;
  const holderMobile = uniqueMobile();
  beforeAll(async () => {
    ({ app } = fixture);
    asker = await registerUser(app);
    holder = await registerUser(app, { mobile: holderMobile });
  });

  async function timed(path: string, body: object): Promise<number> {
    const started = process.hrtime.bigint();
    const res = await request(app.getHttpServer())
      .post(path)
      .set('authorization', `Bearer ${asker.tokens.access_token}`)
      .send(body);
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    expect(res.status).toBe(200);
    return elapsed;
  }

  it.each([
    ['/api/account/email', () => ({ email: holder.email }), () => ({ email: uniqueEmail('free') })],
    ['/api/account/mobile', () => ({ mobile: holderMobile }), () => ({ mobile: uniqueMobile() })],
  ])(`%s: medians within ${MAX_RELATIVE_DIFFERENCE * 100}% of each other`, async (path, taken, free) => {
    for (let i = 0; i < 3; i += 1) {
      await timed(path, taken());
      await timed(path, free());
    }
    const takenTimes: number[] = [];
    const freeTimes: number[] = [];
    for (let i = 0; i < TRIES; i += 1) {
      if (i % 2 === 0) {
        takenTimes.push(await timed(path, taken()));
        freeTimes.push(await timed(path, free()));
      } else {
        freeTimes.push(await timed(path, free()));
        takenTimes.push(await timed(path, taken()));
      }
    }
    const takenMedian = median(takenTimes);
    const freeMedian = median(freeTimes);
    expect(Math.abs(takenMedian - freeMedian) / Math.max(takenMedian, freeMedian)).toBeLessThan(
      MAX_RELATIVE_DIFFERENCE,
    );
  });
});
