import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { registrationBody, uniqueMobile } from '../support/auth-factory.js';
import { startService, type RunningService } from '../support/service-process.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';
import { createDatabase, type TestDatabase } from '../support/test-database.js';

const WATCH_DATE_FORMATS = path.resolve(import.meta.dirname, '../support/watch-date-formats.mjs');
const WATCH_PACKAGES = path.resolve(import.meta.dirname, '../support/watch-package-loads.mjs');

/**
 * What the built service never uses stays out of its memory. Nest builds two `Intl.DateTimeFormat`s
 * as it is imported, for a console logger the service never prints through; each pages ICU's date
 * data into the process for its life. The service builds them on their first use, which never
 * comes: none is built from the start to the stop. pino-pretty renders lines for a development
 * terminal only, and is loaded only there. libphonenumber-js is loaded once, as the CommonJS build
 * that class-validator loads: its ES module build would be a second copy of the library.
 */
describe('the built service, ICU date formats, the readable log rendering and the phone-number library', () => {
  let database: TestDatabase;
  let cwd: string;
  let service: RunningService | undefined;

  beforeAll(async () => {
    database = await createDatabase('seeded');
    cwd = mkdtempSync(path.join(tmpdir(), 'date-formats-'));
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it('builds no date format, loads no pino-pretty and one phone-number library while it starts, signs a user up with a mobile and in, answers who-am-I and stops', async () => {
    service = await startService(
      cwd,
      {
        DATABASE_URL: database.url,
        SINGLE_INSTANCE: 'true',
        JWT_SECRET: TEST_JWT_SECRET,
        DATA_DIR: path.join(cwd, 'data'),
        APP_ENV: 'test',
        ARGON2_MEMORY_KIB: '1024',
        ARGON2_ITERATIONS: '1',
        WATCHED_PACKAGES: 'pino-pretty,libphonenumber-js/build,libphonenumber-js/es6',
      },
      60_000,
      [`--import=${WATCH_DATE_FORMATS}`, `--import=${WATCH_PACKAGES}`],
    );
    const base = service.baseUrl;
    const body = registrationBody({ mobile: uniqueMobile() }) as { email: string; password: string };
    const json = { 'content-type': 'application/json' };
    expect(
      (await fetch(`${base}/api/auth/register`, { method: 'POST', headers: json, body: JSON.stringify(body) })).status,
    ).toBe(201);
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: body.email, password: body.password }),
    });
    expect(login.status).toBe(200);
    const { data } = (await login.json()) as { data: { access_token: string } };
    const me = await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${data.access_token}` } });
    expect(me.status).toBe(200);

    const stopped = service;
    service = undefined;
    expect(await stopped.stop('SIGTERM')).toBe('SIGTERM');
    expect(stopped.output()).toContain('watching date formats');
    expect(stopped.output()).not.toContain('date format built');
    // Its lines are JSON (not a development terminal): the readable rendering is never loaded.
    expect(stopped.output()).toContain('watching package loads');
    expect(stopped.output()).not.toContain('package loaded: pino-pretty');
    // The sign-up's mobile was parsed by the CommonJS build, and no ES module copy was loaded.
    expect(stopped.output()).toContain('package loaded: libphonenumber-js/build');
    expect(stopped.output()).not.toContain('package loaded: libphonenumber-js/es6');
  }, 120_000);
});
