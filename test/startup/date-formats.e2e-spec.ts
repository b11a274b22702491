import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { registrationBody } from '../support/auth-factory.js';
import { startService, type RunningService } from '../support/service-process.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';
import { createDatabase, type TestDatabase } from '../support/test-database.js';

const WATCH = path.resolve(import.meta.dirname, '../support/watch-date-formats.mjs');

/**
 * Nest builds two `Intl.DateTimeFormat`s as it is imported, for a console logger the service never
 * prints through; each pages ICU's date data into the process for its life. The built service
 * builds them on their first use, which never comes: none is built from the start to the stop.
 */
describe('the built service and ICU date formats', () => {
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

  it('builds no date format while it starts, signs a user up and in, answers who-am-I and stops', async () => {
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
      },
      60_000,
      [`--import=${WATCH}`],
    );
    const base = service.baseUrl;
    const body = registrationBody() as { email: string; password: string };
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
  }, 120_000);
});
