import { Controller, Get, Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { Public } from '@auth-rbac/nest-guard';
import { loginTokens, refresh, registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';

interface LogLine {
  level: string;
  time: string;
  msg: string;
  context?: string;
  reqId?: string;
  req?: { id: string; method: string; url: string; headers: Record<string, string> };
  res?: { statusCode: number };
  [key: string]: unknown;
}

const SECRET_IN_OBJECT = 'Secret-In-A-Logged-Object-77';

@Public()
@Controller('log-probe')
class LogProbeController {
  private readonly logger = new Logger('LogProbe');

  @Get('boom')
  boom(): never {
    throw new Error('probe failure');
  }

  @Get('object')
  object(): { ok: true } {
    this.logger.log({
      msg: 'probe object',
      user: { email: 'probe@example.com', password: SECRET_IN_OBJECT, otp_code: '123456' },
    });
    return { ok: true };
  }
}

/** The service's own JSON logger, as main.ts installs it, read back from standard output. */
describe('structured logs', () => {
  let app: NestFastifyApplication;
  const written: string[] = [];
  let restore: () => void;

  beforeAll(() => {
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
      written.push(String(chunk));
      return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write;
    restore = () => (process.stdout.write = original);
  });
  // Built once the capture is on, and closed before it ends.
  const fixture = useTestApp({
    env: { LOG_LEVEL: 'log' },
    logger: 'pino',
    extra: { controllers: [LogProbeController] },
  });
  beforeAll(() => void ({ app } = fixture));
  afterAll(() => restore());

  /** Every JSON line written so far; anything else on stdout (Jest's own output) is skipped. */
  function lines(): LogLine[] {
    return written
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  }

  const completed = (id: string) => lines().filter((line) => line.reqId === id && line.msg === 'request completed');

  it('writes start-up lines of the application as JSON through pino', () => {
    const started = lines().find((line) => line.msg === 'Nest application successfully started');
    expect(started).toMatchObject({ level: 'info', context: 'NestApplication' });
    expect(new Date(started!.time).getTime()).not.toBeNaN();
  });

  it('logs one line per request with the X-Request-Id of the response, and credentials redacted', async () => {
    const user = await registerUser(app);
    const id = 'log-test-0001-abcdef';
    const res = await request(app.getHttpServer())
      .get('/api/auth/me')
      .set('x-request-id', id)
      .set('authorization', `Bearer ${user.tokens.access_token}`)
      .set('cookie', `refresh_token=${user.tokens.refresh_token}`);
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe(id);

    const [line] = completed(id);
    expect(line).toMatchObject({
      level: 'info',
      req: { id, method: 'GET', url: '/api/auth/me' },
      res: { statusCode: 200 },
    });
    expect(line.req!.headers).toMatchObject({ authorization: '[Redacted]', cookie: '[Redacted]' });
    const text = written.join('');
    expect(text).not.toContain(user.tokens.access_token);
    expect(text).not.toContain(user.tokens.refresh_token);
  });

  it('uses a generated id when the incoming one is not well-formed, the same in the header and the log', async () => {
    const res = await request(app.getHttpServer()).get('/api/auth/me').set('x-request-id', 'not a valid id!');
    expect(res.status).toBe(401);
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(completed(id)).toHaveLength(1);
    expect(lines().some((line) => JSON.stringify(line).includes('not a valid id!'))).toBe(false);
  });

  it("carries the request id on the application's own lines logged while serving the request", async () => {
    const user = await registerUser(app);
    const tokens = await loginTokens(app, user);
    expect((await refresh(app, tokens.refresh_token)).status).toBe(200);
    const id = 'log-test-reuse-0002';
    const replay = await request(app.getHttpServer())
      .post('/api/auth/refresh')
      .set('x-request-id', id)
      .send({ refresh_token: tokens.refresh_token });
    expect(replay.body.error.code).toBe('REFRESH_TOKEN_REUSED');
    const warning = lines().find((line) => line.reqId === id && String(line.msg).includes('Refresh token replayed'));
    expect(warning).toMatchObject({ level: 'warn', context: 'Sessions' });
  });

  it('never logs a request body, and censors secrets in objects the application logs', async () => {
    const password = 'Body-Password-Never-Logged-91';
    expect(
      (await request(app.getHttpServer()).post('/api/auth/login').send({ email: 'nobody@example.com', password }))
        .status,
    ).toBe(401);
    const id = 'log-test-object-0003';
    expect((await request(app.getHttpServer()).get('/api/log-probe/object').set('x-request-id', id)).status).toBe(200);

    const probe = lines().find((line) => line.reqId === id && line.msg === 'probe object');
    expect(probe).toMatchObject({
      context: 'LogProbe',
      user: { email: 'probe@example.com', password: '[Redacted]', otp_code: '[Redacted]' },
    });
    const text = written.join('');
    expect(text).not.toContain(password);
    expect(text).not.toContain(SECRET_IN_OBJECT);
  });

  it('logs a 500 with the request id that the body and the header carry', async () => {
    const id = 'log-test-boom-0004';
    const res = await request(app.getHttpServer()).get('/api/log-probe/boom').set('x-request-id', id);
    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'An unexpected error occurred.',
      request_id: id,
    });
    expect(res.headers['x-request-id']).toBe(id);

    const mine = lines().filter((line) => line.reqId === id);
    expect(mine.find((line) => line.context === 'ErrorResponse')).toMatchObject({ level: 'error' });
    expect(mine.find((line) => String(line.msg).includes('probe failure'))).toBeDefined();
    expect(completed(id)).toEqual([]);
    expect(mine.find((line) => line.msg === 'request errored')).toMatchObject({
      level: 'error',
      res: { statusCode: 500 },
    });
  });

  it('keeps health probes below the info level', async () => {
    const id = 'log-test-health-0005';
    expect((await request(app.getHttpServer()).get('/health').set('x-request-id', id)).status).toBe(200);
    expect(lines().filter((line) => line.reqId === id)).toEqual([]);
  });
});
