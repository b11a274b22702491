import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runServiceToExit, startService } from '../support/service-process.js';

/**
 * How long a start on the embedded database may take: a first one creates the cluster, migrates
 * and seeds it, which alone can take a minute on a busy two-core machine.
 */
const START_MS = 150_000;

describe('the built service started with no configuration', () => {
  let cwd: string;

  beforeAll(async () => {
    cwd = await mkdtemp(path.join(os.tmpdir(), 'auth-bare-'));
  });

  afterAll(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  it(
    'serves /health and /health/ready on the embedded database, seeded, and stops cleanly on SIGTERM',
    async () => {
      const service = await startService(cwd, {}, START_MS);
      try {
        const live = await fetch(`${service.baseUrl}/health`);
        expect(live.status).toBe(200);
        expect(await live.json()).toEqual({ success: true, data: { status: 'ok' } });

        const ready = await fetch(`${service.baseUrl}/health/ready`);
        expect(ready.status).toBe(200);
        const readyBody = (await ready.json()) as { data: { info: { database: { status: string } } } };
        expect(readyBody.data.info.database.status).toBe('up');

        expect(service.output()).toContain('JWT_SECRET is not set');
        expect(service.output()).toMatch(/admin\s+admin@example\.com\s+password: \S{24}/);
        expect(existsSync(path.join(cwd, 'data', 'embedded-postgres.lock'))).toBe(true);
      } finally {
        // Nest closes the app, then re-raises the signal so the parent sees a SIGTERM exit.
        expect(await service.stop('SIGTERM')).toBe('SIGTERM');
      }
      expect(service.output()).toContain('Embedded PostgreSQL stopped');
      expect(existsSync(path.join(cwd, 'data', 'embedded-postgres.lock'))).toBe(false);

      // The data persisted under ./data: the second start finds it seeded and prints no password.
      const again = await startService(cwd, {}, START_MS);
      try {
        expect((await fetch(`${again.baseUrl}/health/ready`)).status).toBe(200);
        expect(again.output()).not.toContain('Empty database');
        expect(again.output()).not.toContain('password:');
      } finally {
        expect(await again.stop()).toBe('SIGTERM');
      }
    },
    2 * START_MS,
  );

  it(
    'refuses a second process on the same embedded data directory',
    async () => {
      const first = await startService(cwd, {}, START_MS);
      try {
        const second = await runServiceToExit(cwd, {});
        expect(second.code).toBe(1);
        expect(second.output).toContain('is in use by process');
      } finally {
        await first.stop();
      }
    },
    START_MS,
  );

  it('exits non-zero with a clear message in production without JWT_SECRET', async () => {
    const result = await runServiceToExit(cwd, { APP_ENV: 'production' });
    expect(result.code).toBe(1);
    expect(result.output).toContain('JWT_SECRET is required in production');
  });

  it('exits non-zero in production with a JWT_SECRET under 32 bytes', async () => {
    const result = await runServiceToExit(cwd, { APP_ENV: 'production', JWT_SECRET: 'too-short-secret' });
    expect(result.code).toBe(1);
    expect(result.output).toContain('JWT_SECRET is too short');
    expect(result.output).not.toContain('too-short-secret');
  });

  it('exits non-zero in production with a guessable JWT_SECRET, SMS codes in the log and a common seed password', async () => {
    const secret = 'a'.repeat(64);
    const result = await runServiceToExit(cwd, {
      APP_ENV: 'production',
      JWT_SECRET: secret,
      SEED_ADMIN_PASSWORD: 'iloveyou1',
    });
    expect(result.code).toBe(1);
    expect(result.output).toContain('JWT_SECRET is guessable');
    expect(result.output).toContain('SMS_TRANSPORT=log writes one-time codes to the log');
    expect(result.output).toContain('SEED_ADMIN_PASSWORD is on the list of common passwords');
    expect(result.output).toContain(
      'set DATABASE_URL to a PostgreSQL server, or ALLOW_EMBEDDED_DATABASE_IN_PRODUCTION=true to run on the embedded database on purpose',
    );
    expect(result.output).not.toContain(secret);
    expect(result.output).not.toContain('iloveyou1');
  });

  it('exits non-zero naming the variable when a value is invalid', async () => {
    const result = await runServiceToExit(cwd, { PORT: 'eighty', ACCESS_TOKEN_EXPIRY: '-5' });
    expect(result.code).toBe(1);
    // One JSON log line: the message, once parsed, names the value as given.
    expect(JSON.parse(result.output.trim()).msg).toContain('PORT="eighty"');
    expect(result.output).toContain('ACCESS_TOKEN_EXPIRY');
  });
});
