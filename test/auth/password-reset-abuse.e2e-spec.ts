import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser } from '../support/auth-factory.js';
import { resetTokenFrom, type SmtpSink } from '../support/smtp-sink.js';
import { useTestApp } from '../support/fixture.js';

const APP_URL = 'https://accounts.example.test';

describe('forgot-password against mail abuse', () => {
  let sink: SmtpSink;
  let app: NestFastifyApplication;
  let db: DataSource;

  const fixture = useTestApp({ smtp: true, env: { APP_URL, OTP_RESEND_SECONDS: '60' } });
  beforeAll(() => void ({ smtp: sink, app, db } = fixture));

  const forgot = (email: string) => request(app.getHttpServer()).post('/api/auth/forgot-password').send({ email });

  it('mails one address at most once per OTP_RESEND_SECONDS, with the same answer every time', async () => {
    const user = await registerUser(app);
    const answers = [await forgot(user.email), await forgot(user.email), await forgot(user.email.toUpperCase())];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual(answers[0].body);
    }
    const mail = await sink.waitForMail(user.email);
    // A later mail to someone else has been through the same queue: anything for `user` would be in by now.
    const marker = await registerUser(app);
    await forgot(marker.email);
    await sink.waitForMail(marker.email);
    expect(sink.mailsTo(user.email)).toHaveLength(1);
    // The one mail's link still works.
    const token = resetTokenFrom(mail, APP_URL);
    const reset = await request(app.getHttpServer())
      .post('/api/auth/reset-password')
      .send({ token, password: 'Violet-Harbour-Quill-77', password_confirmation: 'Violet-Harbour-Quill-77' });
    expect(reset.status).toBe(200);
  });

  it('writes fixed text and the link only: never the name the user chose', async () => {
    const user = await registerUser(app, { name: 'Zebulon Quixote <a href="https://evil.example">claim</a>' });
    expect((await forgot(user.email)).status).toBe(200);
    const mail = await sink.waitForMail(user.email);
    expect(mail.raw).not.toMatch(/Zebulon|Quixote|evil\.example/);
    expect(mail.text).toContain(`${APP_URL}/reset-password?token=${resetTokenFrom(mail, APP_URL)}`);
  });

  it('queues the mail encrypted: the outbox never holds the link, the token or the address in clear', async () => {
    const user = await registerUser(app);
    expect((await forgot(user.email)).status).toBe(200);
    const queued = await db.query(`SELECT * FROM outbox_messages WHERE user_id = $1`, [user.id]);
    const token = resetTokenFrom(await sink.waitForMail(user.email), APP_URL);
    expect(queued.length).toBeGreaterThanOrEqual(1);
    const dump = JSON.stringify(queued);
    for (const secret of [token, user.email]) {
      expect(dump).not.toContain(secret);
      for (const row of queued)
        if (row.payload) expect((row.payload as Buffer).toString('latin1')).not.toContain(secret);
    }
    // Wiped once delivered.
    const deadline = Date.now() + 5000;
    let rows: { status: string; payload: Buffer | null }[];
    do {
      rows = await db.query(`SELECT status, payload FROM outbox_messages WHERE user_id = $1`, [user.id]);
      if (rows.every((row) => row.status === 'sent')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } while (Date.now() < deadline);
    // The registration's verification mail and the reset mail.
    expect(rows).toEqual([
      { status: 'sent', payload: null },
      { status: 'sent', payload: null },
    ]);
  });
});
