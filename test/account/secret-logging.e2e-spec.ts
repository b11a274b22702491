import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { format } from 'node:util';
import { TOTP, URI } from 'otpauth';
import request, { type Response } from 'supertest';
import { registerUser, sha256Hex, sleep, uniqueEmail } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { RecordingLogger } from '../support/recording-logger.js';
import type { SmtpSink } from '../support/smtp-sink.js';

const APP_URL = 'https://accounts.example.test';
const STEP_MS = 30_000;

describe('the authenticator secret, recovery codes and email-change link stay out of logs and error bodies', () => {
  let sink: SmtpSink;
  let app: NestFastifyApplication;
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
  const fixture = useTestApp({ smtp: true, env: { APP_URL, LOG_LEVEL: 'verbose', OTP_RESEND_SECONDS: '0' }, logger });
  beforeAll(() => void ({ smtp: sink, app } = fixture));
  afterAll(() => {
    for (const restore of restores) restore();
  });

  it('through enrolment, confirmation, sign-in with the app and a recovery code, and an email change', async () => {
    const server = () => app.getHttpServer();
    const responses: Response[] = [];
    const send = async (req: request.Test) => {
      const res = await req;
      responses.push(res);
      return res;
    };
    const user = await registerUser(app);
    const authed = (path: string, body: object = {}) =>
      request(server()).post(path).set('authorization', `Bearer ${user.tokens.access_token}`).send(body);
    const login = () =>
      send(request(server()).post('/api/auth/login').send({ email: user.email, password: user.password }));
    const verify2fa = (body: object) => send(request(server()).post('/api/auth/otp/verify-2fa').send(body));
    const wrong = (code: string) => String((Number(code) + 7) % 1_000_000).padStart(6, '0');

    // Away from the end of a time step, so the codes of adjacent steps used below stay valid.
    const intoStep = Date.now() % STEP_MS;
    if (intoStep > STEP_MS - 8_000) await sleep(STEP_MS - intoStep + 500);

    // Enrolment: the secret is shown in this one answer, and nowhere else.
    const started = await authed('/api/account/totp');
    expect(started.status).toBe(200);
    const device = URI.parse(started.body.data.otpauth_uri) as TOTP;
    const secret = device.secret.base32;
    expect((await send(authed('/api/account/totp/confirm', { code: wrong(device.generate()) }))).status).toBe(401);
    const confirmed = await authed('/api/account/totp/confirm', {
      code: device.generate({ timestamp: Date.now() - STEP_MS }),
    });
    expect(confirmed.status).toBe(200);
    const recoveryCodes: string[] = confirmed.body.data.recovery_codes;
    expect(recoveryCodes).toHaveLength(10);
    expect((await send(authed('/api/account/totp'))).status).toBe(409);
    expect((await send(authed('/api/account/totp/confirm', { code: device.generate() }))).status).toBe(409);

    // Sign in with the app: a wrong code, then a right one.
    const first = await login();
    expect(first.body.data.requires_otp).toBe(true);
    expect(
      (await verify2fa({ temp_token: first.body.data.temp_token, code: wrong(device.generate()), method: 'totp' }))
        .status,
    ).toBe(401);
    expect(
      (await verify2fa({ temp_token: first.body.data.temp_token, code: device.generate(), method: 'totp' })).status,
    ).toBe(200);

    // Sign in with a recovery code, then replay it, then try a malformed one.
    const second = await login();
    expect(
      (await verify2fa({ temp_token: second.body.data.temp_token, code: recoveryCodes[0], method: 'recovery' })).status,
    ).toBe(200);
    const third = await login();
    expect(
      (await verify2fa({ temp_token: third.body.data.temp_token, code: recoveryCodes[0], method: 'recovery' })).status,
    ).toBe(401);
    expect(
      (await verify2fa({ temp_token: third.body.data.temp_token, code: `${recoveryCodes[1]}x`, method: 'recovery' }))
        .status,
    ).toBeGreaterThanOrEqual(400);
    expect(
      (await verify2fa({ temp_token: third.body.data.temp_token, code: recoveryCodes[1], method: 'recovery' })).status,
    ).toBe(200);

    // An email change: a wrong link, the link, the link again.
    const newEmail = uniqueEmail('moved');
    expect((await send(authed('/api/account/email', { email: newEmail }))).status).toBe(200);
    const match = /\/confirm-email\?token=([A-Za-z0-9_-]+)/.exec((await sink.waitForMail(newEmail)).text);
    const emailToken = match![1];
    const confirmEmail = (token: string) => send(request(server()).post('/api/account/email/confirm').send({ token }));
    expect((await confirmEmail(`${emailToken}x`)).status).toBe(400);
    expect((await confirmEmail(emailToken)).status).toBe(200);
    expect((await confirmEmail(emailToken)).status).toBe(400);

    const secrets: [string, string][] = [
      ['TOTP secret', secret],
      ['TOTP secret, lower case', secret.toLowerCase()],
      ['email-change token', emailToken],
      ['email-change token hash', sha256Hex(emailToken)],
      ...recoveryCodes.flatMap((code): [string, string][] => [
        ['recovery code', code],
        ['recovery code without its dash', code.replace(/-/g, '')],
      ]),
    ];

    // No error body, and no answer but the enrolment's own two, carries any of them.
    const errors = responses.filter((res) => res.status >= 400);
    expect(errors.length).toBeGreaterThanOrEqual(8);
    const responseText = responses.map((res) => `${JSON.stringify(res.headers)}\n${res.text}`).join('\n');
    for (const [label, value] of secrets) {
      expect({ label, found: responseText.includes(value) }).toEqual({ label, found: false });
    }

    const logText = [...logger.lines, ...written].join('\n');
    // The capture works: the request lines of this very flow were recorded.
    expect(logText).toContain('/api/account/totp/confirm');
    expect(logText).toContain('/api/account/email/confirm');
    for (const [label, value] of secrets) {
      expect({ label, found: logText.includes(value) }).toEqual({ label, found: false });
    }
  });
});
