import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { parse } from 'yaml';
import { TEST_REDIS_URL } from '../support/redis.js';
import { createTestApp } from '../support/test-app.js';
import { createDatabase, type TestDatabase } from '../support/test-database.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
}
const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};

/** Compose's interpolation with nothing set on the host: `${NAME:-default}` is its default, `$$` is `$`. */
function interpolate(value: string): string {
  return value.replace(/\$\$|\$\{[A-Z_]+:-([^}]*)\}/g, (match, fallback: string | undefined) =>
    match === '$$' ? '$' : (fallback ?? ''),
  );
}

/**
 * The compose file's shell scripts, run here as the containers would run them: the image's
 * `/var/lib/auth` is a temporary folder, its working directory this repository (the same `dist/`).
 */
function script(service: string, dataDir: string): string {
  return interpolate(compose.services[service]!.command!.at(-1)!).replaceAll('/var/lib/auth', dataDir);
}

describe('docker-compose.yml: what `docker compose up` runs before and around the instances', () => {
  let database: TestDatabase;
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createDatabase('empty');
    dataDir = mkdtempSync(path.join(tmpdir(), 'auth-compose-'));
    env = {
      ...Object.fromEntries(
        Object.entries(compose.services.setup!.environment!).map(([name, value]) => [name, interpolate(String(value))]),
      ),
      // The containers' network names, here: the test's database and Redis.
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_ITERATIONS: '1',
      PATH: process.env.PATH ?? '',
      HOME: dataDir,
    };
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Asynchronously: on the embedded database, this process serves the database the script uses. */
  const runSetup = () =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('sh', ['-c', script('setup', dataDir)], { cwd: ROOT, env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });

  it('setup generates the JWT secret, migrates, seeds the administrator and prints its password once', async () => {
    const first = await runSetup();
    expect({ status: first.status, stderr: first.stderr }).toEqual({ status: 0, stderr: '' });
    const password = /Administrator admin@example\.com, password: (\S+) \(shown only this once/.exec(first.stdout)?.[1];
    expect(password).toBeDefined();
    const secretFile = path.join(dataDir, 'jwt-secret');
    const secret = readFileSync(secretFile, 'utf8');
    expect(secret).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);

    // The printed password signs the administrator in.
    const app = await createTestApp({ env: { DATABASE_URL: database.url } });
    try {
      const login = await request(app.getHttpServer())
        .post('/api/auth/login')
        .send({ email: 'admin@example.com', password });
      expect(login.status).toBe(200);
      expect(login.body.data.user.email).toBe('admin@example.com');
    } finally {
      await app.close();
    }

    // Run again (every `docker compose up`): the same secret, no new password printed.
    const second = await runSetup();
    expect(second.status).toBe(0);
    expect(second.stdout).not.toContain('password:');
    expect(second.stdout).toContain('0 accounts created');
    expect(readFileSync(secretFile, 'utf8')).toBe(secret);
  });

  it('each instance signs with that one secret unless JWT_SECRET is given', () => {
    const serve = script('auth-1', dataDir).replace(/exec node .*$/, 'printf %s "$JWT_SECRET"');
    const secret = readFileSync(path.join(dataDir, 'jwt-secret'), 'utf8');
    const shared = spawnSync('sh', ['-c', serve], { env: { PATH: env.PATH!, JWT_SECRET: '' }, encoding: 'utf8' });
    expect(shared.stdout).toBe(secret);
    const given = spawnSync('sh', ['-c', serve], {
      env: { PATH: env.PATH!, JWT_SECRET: 'given-secret-0123456789-abcdefghijklmn' },
      encoding: 'utf8',
    });
    expect(given.stdout).toBe('given-secret-0123456789-abcdefghijklmn');
  });
});
