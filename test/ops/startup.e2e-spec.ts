import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startService, type RunningService } from '../support/service-process.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';
import { createDatabase, type TestDatabase } from '../support/test-database.js';

/** The banner's lines follow the "Listening" line that startService waits for. */
async function bannerOf(service: RunningService): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (!service.output().includes('Login methods:') && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return service.output();
}

describe('start-up that explains itself', () => {
  let database: TestDatabase;
  let cwd: string;

  beforeAll(async () => {
    // Migrated, never seeded: the service seeds it at start, as on a first deployment.
    database = await createDatabase('migrated');
    cwd = mkdtempSync(path.join(tmpdir(), 'auth-startup-'));
  });
  afterAll(async () => {
    await database.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: database.url,
    DATA_DIR: path.join(cwd, 'data'),
    JWT_SECRET: TEST_JWT_SECRET,
    APP_ENV: 'development',
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_ITERATIONS: '1',
    ...extra,
  });

  it('says where it is bound, which database and Redis it uses, and saves generated seed passwords to a 0600 file', async () => {
    const service = await startService(cwd, env());
    try {
      const output = await bannerOf(service);
      // Outside production, without HOST, nothing on the network reaches it while it prints passwords.
      expect(output).toMatch(/Listening on http:\/\/127\.0\.0\.1:\d+ \(bound to 127\.0\.0\.1:\d+; development\)/);
      expect(output).toContain(
        `Database: PostgreSQL at ${new URL(database.url).protocol}//${new URL(database.url).host}`,
      );
      expect(output).not.toMatch(/Database: PostgreSQL at [^\s"]*@/);
      expect(output).toContain('Redis: none');
      expect(output).toContain('Login methods: email_password=true, mobile_otp=false');
      // Nest's line per route and per module stays below the default level.
      expect(output).not.toContain('Mapped {');
      expect(output).not.toContain('dependencies initialized');

      // A server database's passwords go to a file of its own, each line naming the database;
      // the embedded database's seed-passwords.txt is left alone.
      const server = new URL(database.url);
      const label = `${server.protocol}//${server.host}${server.pathname}`;
      const file = path.join(
        cwd,
        'data',
        `seed-passwords.${`${server.hostname}-${server.port || '5432'}-${server.pathname.slice(1)}`.replace(/[^A-Za-z0-9._-]/g, '_')}.txt`,
      );
      expect(existsSync(path.join(cwd, 'data', 'seed-passwords.txt'))).toBe(false);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const saved = readFileSync(file, 'utf8');
      const printed = /admin\s+admin@example\.com\s+password: (\S+)/.exec(output)?.[1];
      expect(printed).toBeDefined();
      expect(saved).toContain(`  ${label}  admin  admin@example.com  password: ${printed}`);
      expect(output).toContain(`Seeded accounts of ${label} with generated passwords`);
      expect(output).toContain(`Also written to ${file} (mode 0600)`);
    } finally {
      await service.stop();
    }
  });

  it('says when the stored login-method settings win over the environment', async () => {
    const service = await startService(cwd, env({ AUTH_MOBILE_OTP: 'true' }));
    try {
      expect(await bannerOf(service)).toContain(
        'mobile_otp=false (stored value wins over AUTH_MOBILE_OTP=true; change it with PUT /api/admin/settings)',
      );
      expect(service.output()).not.toContain('password:');
    } finally {
      await service.stop();
    }
  });

  it('listens on every interface when HOST says so, and names PORT in the issuer when APP_URL is unset', async () => {
    const port = await freePort();
    const service = await startService(cwd, env({ HOST: '0.0.0.0', PORT: String(port) }));
    try {
      expect(await bannerOf(service)).toMatch(
        /Listening on http:\/\/127\.0\.0\.1:\d+ \(bound to 0\.0\.0\.0:\d+, every interface; development\)/,
      );
      const discovery = (await (await fetch(`${service.baseUrl}/.well-known/openid-configuration`)).json()) as {
        issuer: string;
      };
      expect(discovery.issuer).toBe(`http://localhost:${port}`);
    } finally {
      await service.stop();
    }
  });
});

describe('start-up with the second factor on and an administrator without a mobile', () => {
  let database: TestDatabase;
  let cwd: string;

  beforeAll(async () => {
    // Migrated, never seeded: the service seeds it at start, as on a first deployment.
    database = await createDatabase('migrated');
    cwd = mkdtempSync(path.join(tmpdir(), 'auth-startup-2fa-'));
  });
  afterAll(async () => {
    await database.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('warns that the second factor cannot reach that administrator', async () => {
    const service = await startService(cwd, {
      DATABASE_URL: database.url,
      DATA_DIR: path.join(cwd, 'data'),
      JWT_SECRET: TEST_JWT_SECRET,
      APP_ENV: 'development',
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_ITERATIONS: '1',
      AUTH_MOBILE_OTP: 'true',
    });
    try {
      const output = await bannerOf(service);
      expect(output).toContain('Login methods: email_password=true, mobile_otp=true');
      const deadline = Date.now() + 10_000;
      while (!service.output().includes('have no mobile') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(service.output()).toContain(
        '1 administrator account(s) have no mobile: the second factor cannot apply to them',
      );
    } finally {
      await service.stop();
    }
  });
});

/** A port nothing listens on now (the kernel's pick, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
