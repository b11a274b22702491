import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { format } from 'node:util';
import request, { type Response } from 'supertest';
import type { DataSource } from 'typeorm';
import { registrationBody, sha256Hex, uniqueMobile } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { RecordingLogger } from '../support/recording-logger.js';
import { resetTokenFrom, type SmtpSink } from '../support/smtp-sink.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';

const APP_URL = 'https://accounts.example.test';

describe('no secret in any response or log line', () => {
  let sink: SmtpSink;
  let app: NestFastifyApplication;
  let db: DataSource;
  const logger = new RecordingLogger();
  const written: string[] = [];
  const restores: (() => void)[] = [];

  beforeAll(() => {
    // Everything the process writes while the flow runs, besides what goes through Nest's logger.
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write.bind(stream);
      stream.write = ((chunk: unknown, ...rest: unknown[]) => {
        written.push(String(chunk));
        return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof stream.write;
      restores.push(() => (stream.write = original));
    }
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      const original = console[method];
      console[method] = (...args: unknown[]) => {
        written.push(format(...args));
        original(...args);
      };
      restores.push(() => (console[method] = original));
    }
  });
  // Built once the capture is on, and closed before it ends.
  const fixture = useTestApp({ smtp: true, env: { APP_URL, LOG_LEVEL: 'verbose' }, logger });
  beforeAll(() => void ({ smtp: sink, app, db } = fixture));
  afterAll(() => {
    for (const restore of restores) restore();
  });

  it('keeps passwords, hashes, tokens and reset tokens out of every response and log line', async () => {
    const server = () => app.getHttpServer();
    const responses: Response[] = [];
    const send = async (req: request.Test) => {
      const res = await req;
      responses.push(res);
      return res;
    };
    const oldPassword = 'Amber-Falcon-Meadow-31';
    const newPassword = 'Cobalt-Willow-Sextant-58';
    const mobile = uniqueMobile();
    const body = registrationBody({ password: oldPassword, password_confirmation: oldPassword, mobile });
    const email = String(body.email);

    // Register, log in both ways, fail a login, refresh, replay (reuse), log out.
    const registered = await send(request(server()).post('/api/auth/register').send(body));
    expect(registered.status).toBe(201);
    const userId: string = registered.body.data.user.id;
    expect((await send(request(server()).post('/api/auth/register').send(body))).status).toBe(409);
    expect(
      (
        await send(
          request(server())
            .post('/api/auth/register')
            .send({ ...body, email: 'x', password_confirmation: 'Other-Pass-123' }),
        )
      ).status,
    ).toBe(400);
    const byEmail = await send(request(server()).post('/api/auth/login').send({ email, password: oldPassword }));
    const byMobile = await send(request(server()).post('/api/auth/login').send({ mobile, password: oldPassword }));
    expect(byMobile.status).toBe(200);
    expect(
      (
        await send(
          request(server())
            .post('/api/auth/login')
            .send({ email, password: `${oldPassword}!` }),
        )
      ).status,
    ).toBe(401);
    const rotated = await send(
      request(server()).post('/api/auth/refresh').send({ refresh_token: byEmail.body.data.refresh_token }),
    );
    expect(rotated.status).toBe(200);
    const reuse = await send(
      request(server()).post('/api/auth/refresh').send({ refresh_token: byEmail.body.data.refresh_token }),
    );
    expect(reuse.body.error.code).toBe('REFRESH_TOKEN_REUSED');
    expect(
      (
        await send(
          request(server()).get('/api/auth/me').set('authorization', `Bearer ${byMobile.body.data.access_token}`),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await send(
          request(server()).post('/api/auth/logout').set('authorization', `Bearer ${byMobile.body.data.access_token}`),
        )
      ).status,
    ).toBe(200);

    // Forgot and reset the password, then sign in with the new one.
    const [{ password_hash: oldHash }] = await db.query(`SELECT password_hash FROM users WHERE id = $1`, [userId]);
    expect((await send(request(server()).post('/api/auth/forgot-password').send({ email }))).status).toBe(200);
    const resetToken = resetTokenFrom(await sink.waitForMail(email), APP_URL);
    const resetBody = { token: resetToken, password: newPassword, password_confirmation: newPassword };
    expect((await send(request(server()).post('/api/auth/reset-password').send(resetBody))).status).toBe(200);
    expect((await send(request(server()).post('/api/auth/reset-password').send(resetBody))).status).toBe(400);
    const afterReset = await send(request(server()).post('/api/auth/login').send({ email, password: newPassword }));
    expect(afterReset.status).toBe(200);
    const [{ password_hash: newHash }] = await db.query(`SELECT password_hash FROM users WHERE id = $1`, [userId]);
    const sessionHashes: string[] = (
      await db.query(`SELECT refresh_token_hash FROM sessions WHERE user_id = $1`, [userId])
    ).map((row: { refresh_token_hash: string }) => row.refresh_token_hash);
    const resetHashes: string[] = (
      await db.query(`SELECT token_hash FROM password_reset_tokens WHERE user_id = $1`, [userId])
    ).map((row: { token_hash: string }) => row.token_hash);
    expect(resetHashes).toContain(sha256Hex(resetToken));

    const jwts = responses
      .filter((res) => res.body?.data?.access_token)
      .flatMap((res) => [res.body.data.access_token as string, res.body.data.refresh_token as string]);
    expect(jwts.length).toBeGreaterThanOrEqual(10);

    // Secrets that must never appear anywhere, responses included.
    const neverAnywhere: [string, string][] = [
      ['old password', oldPassword],
      ['new password', newPassword],
      ['old password hash', oldHash],
      ['new password hash', newHash],
      ['reset token', resetToken],
      ['JWT secret', TEST_JWT_SECRET],
      ...sessionHashes.map((hash): [string, string] => ['refresh token hash', hash]),
      ...resetHashes.map((hash): [string, string] => ['reset token hash', hash]),
      ...jwts.map((token): [string, string] => ['refresh token hash', sha256Hex(token)]),
    ];
    // Tokens belong in token responses, never in a log.
    const neverLogged: [string, string][] = [
      ...neverAnywhere,
      ...jwts.map((token): [string, string] => ['JWT', token]),
    ];

    const responseText = responses.map((res) => `${JSON.stringify(res.headers)}\n${res.text}`).join('\n');
    for (const [label, secret] of neverAnywhere) {
      expect({ label, found: responseText.includes(secret) }).toEqual({ label, found: false });
    }
    expect(responseText).not.toContain('$argon2');

    const logText = [...logger.lines, ...written].join('\n');
    // The capture works: the reuse warning and the app's start-up lines were recorded.
    expect(logText).toContain('Refresh token replayed');
    for (const [label, secret] of neverLogged) {
      expect({ label, found: logText.includes(secret) }).toEqual({ label, found: false });
    }
    expect(logText).not.toContain('$argon2');
  });
});
