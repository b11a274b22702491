import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser, sleep, uniqueMobile } from '../support/auth-factory.js';
import type { TestDatabase } from '../support/databases.mjs';
import { SmsReceiver } from '../support/sms-receiver.js';
import { createTestApp } from '../support/test-app.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';

/**
 * send-otp never waits for the SMS gateway: the code is queued in the database and sent after the
 * response, so known and unknown mobiles answer alike, and a failing gateway is retried and
 * audited, never shown.
 */
const GATEWAY_DELAY_MS = 300;
const MAX_ATTEMPTS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

describe('send-otp delivery through the outbox', () => {
  const fixture = useTestApp({
    sms: true,
    env: {
      ...SMS_LOGINS,
      OTP_HOURLY_CAP: '1000',
      OUTBOX_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
      OUTBOX_RETRY_BASE_MS: '100',
    },
  });
  let database: TestDatabase;
  let db: DataSource;
  let sms: SmsReceiver;
  let app: NestFastifyApplication;
  beforeAll(() => void ({ database, db, sms, app } = fixture));

  const sendOtp = (mobile: string) => request(app.getHttpServer()).post('/api/auth/send-otp').send({ mobile });

  async function knownMobile(): Promise<{ id: string; mobile: string }> {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    return { id: user.id, mobile };
  }

  async function timed(mobile: string) {
    const started = process.hrtime.bigint();
    const res = await sendOtp(mobile);
    return { res, ms: Number(process.hrtime.bigint() - started) / 1e6 };
  }

  it('answers a known mobile as fast as an unknown one while the gateway takes 300 ms', async () => {
    sms.delayMs = GATEWAY_DELAY_MS;
    try {
      const known: number[] = [];
      const unknown: number[] = [];
      const mobiles: string[] = [];
      for (let round = 0; round < 7; round++) {
        const { mobile } = await knownMobile();
        mobiles.push(mobile);
        const a = await timed(mobile);
        const b = await timed(uniqueMobile());
        expect(a.res.status).toBe(200);
        expect(b.res.status).toBe(200);
        expect(b.res.body).toEqual(a.res.body);
        known.push(a.ms);
        unknown.push(b.ms);
      }
      // Had the known mobile waited for the gateway, its median would lie a full delay above.
      expect(median(known) - median(unknown)).toBeLessThan(GATEWAY_DELAY_MS / 2);
      for (const mobile of mobiles) expect((await sms.waitFor(mobile)).to).toBe(mobile);
    } finally {
      sms.delayMs = 0;
    }
  });

  it('answers 200 for known and unknown mobiles when the gateway fails, retries, and audits the final failure', async () => {
    const user = await knownMobile();
    const unknown = uniqueMobile();
    sms.failing = true;
    sms.failStatus = 500;
    try {
      const a = await sendOtp(user.mobile);
      const b = await sendOtp(unknown);
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(b.body).toEqual(a.body);

      const deadline = Date.now() + 10_000;
      let events: { details: Record<string, unknown> }[] = [];
      while (Date.now() < deadline) {
        events = await db.query(
          `SELECT details FROM audit_events WHERE type = 'message.undelivered' AND actor_id = $1`,
          [user.id],
        );
        if (events.length > 0) break;
        await sleep(50);
      }
      expect(events).toHaveLength(1);
      expect(events[0].details).toMatchObject({ channel: 'sms', attempts: MAX_ATTEMPTS });
      expect(JSON.stringify(events)).not.toContain(user.mobile);
      // More requests than one delivery attempt makes (the sender itself tries twice).
      expect(sms.requests.filter((sent) => sent.to === user.mobile).length).toBeGreaterThan(2);
      expect(sms.requests.filter((sent) => sent.to === unknown)).toEqual([]);
      const rows = await db.query(
        `SELECT status, payload, attempts FROM outbox_messages WHERE user_id = $1 AND channel = 'sms'`,
        [user.id],
      );
      expect(rows).toEqual([{ status: 'failed', payload: null, attempts: MAX_ATTEMPTS }]);
    } finally {
      sms.failing = false;
    }
  });

  it('sends each queued SMS exactly once with two instances on one database', async () => {
    const other = await createTestApp({
      env: {
        DATABASE_URL: database.url,
        AUTH_MOBILE_OTP: 'true',
        SMS_TRANSPORT: 'webhook',
        SMS_WEBHOOK_URL: sms.url,
        OTP_RESEND_SECONDS: '0',
        OTP_HOURLY_CAP: '1000',
      },
    });
    try {
      const users = await Promise.all(Array.from({ length: 8 }, () => knownMobile()));
      const answers = await Promise.all(
        users.map((user, i) =>
          request((i % 2 ? other : app).getHttpServer())
            .post('/api/auth/send-otp')
            .send({ mobile: user.mobile }),
        ),
      );
      expect(answers.map((res) => res.status)).toEqual(Array(users.length).fill(200));
      for (const user of users) await sms.waitFor(user.mobile);
      // Anything sent twice would have arrived by the time a later message to someone else has.
      const marker = await knownMobile();
      await sendOtp(marker.mobile);
      await sms.waitFor(marker.mobile);
      for (const user of users) expect(sms.to(user.mobile)).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});
