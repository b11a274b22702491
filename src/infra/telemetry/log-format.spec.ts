import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { buildAppConfig } from '../../config/app-config.js';
import { parseEnvironment } from '../../config/environment.js';
import { loggerOptions, logFormat } from './logging.module.js';
import { PRODUCTION_ENVIRONMENT } from '../../../test/support/test-config.js';

const SECRET = 'A-Password-That-Must-Not-Show-91';

function terminal(isTTY: boolean): PassThrough & { isTTY: boolean; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = Object.assign(new PassThrough(), { isTTY, text: () => Buffer.concat(chunks).toString('utf8') });
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return stream;
}

const configFor = (env: Record<string, string>) =>
  buildAppConfig(parseEnvironment({ JWT_SECRET: randomBytes(32).toString('base64url'), ...env }));

/** Writes one line through the service's logger options to `output`, as the service would. */
async function logOne(env: Record<string, string>, output: ReturnType<typeof terminal>): Promise<string> {
  const [options, destination] = loggerOptions(configFor(env), output);
  pino(options, destination).info(
    { context: 'Probe', user: { email: 'ann@example.com', password: SECRET } },
    'hello from the probe',
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  return output.text();
}

describe('log format', () => {
  it.each([
    ['fatal', 'fatal'],
    ['error', 'error'],
    ['warn', 'warn'],
    ['log', 'info'],
    ['debug', 'debug'],
    ['verbose', 'trace'],
  ])('LOG_LEVEL=%s logs at pino level %s', (logLevel, pinoLevel) => {
    const [options] = loggerOptions(configFor({ LOG_LEVEL: logLevel }), terminal(false));
    expect(options.level).toBe(pinoLevel);
  });

  it.each([
    [{ APP_ENV: 'development' }, true, 'pretty'],
    [{}, true, 'pretty'],
    [{}, false, 'json'],
    [{ APP_ENV: 'development' }, false, 'json'],
    [{ APP_ENV: 'test' }, true, 'json'],
    [{ APP_ENV: 'staging' }, true, 'json'],
    [PRODUCTION_ENVIRONMENT, true, 'json'],
  ])('%j on a terminal: %s -> %s', (env, isTTY, format) => {
    expect(logFormat(configFor(env as Record<string, string>), { isTTY })).toBe(format);
  });

  it('writes one JSON object a line when not pretty', async () => {
    const text = await logOne({ APP_ENV: 'test' }, terminal(true));
    const line = JSON.parse(text.trim()) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'info',
      msg: 'hello from the probe',
      context: 'Probe',
      user: { email: 'ann@example.com', password: '[Redacted]' },
    });
    expect(text).not.toContain(SECRET);
  });

  // Node's module cache: what the code requires on demand. A static import would not show here
  // (the test runner loads ES modules itself); the built service's start-up test watches for that.
  it('requires pino-pretty only for a development terminal, never for JSON lines', () => {
    const require = createRequire(import.meta.url);
    const pretty = require.resolve('pino-pretty');
    delete require.cache[pretty];
    loggerOptions(configFor(PRODUCTION_ENVIRONMENT), terminal(true));
    loggerOptions(configFor({ APP_ENV: 'test' }), terminal(true));
    loggerOptions(configFor({ APP_ENV: 'development' }), terminal(false));
    expect(require.cache[pretty]).toBeUndefined();
    loggerOptions(configFor({ APP_ENV: 'development' }), terminal(true));
    expect(require.cache[pretty]).toBeDefined();
  });

  it('writes readable lines on a development terminal, with the same secrets censored', async () => {
    const text = await logOne({ APP_ENV: 'development' }, terminal(true));
    expect(text).toContain('hello from the probe');
    expect(text).toContain('INFO');
    expect(text).toContain('[Redacted]');
    expect(text).not.toContain(SECRET);
    expect(() => JSON.parse(text.trim())).toThrow();
  });
});
