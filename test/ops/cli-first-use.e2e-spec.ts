import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const CLI = path.resolve(import.meta.dirname, '../../dist/src/cli/main.js');

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI in `cwd` with only the given variables. */
function cli(cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the admin CLI on first use', () => {
  let cwd: string;

  beforeEach(() => {
    cwd = mkdtempSync(path.join(tmpdir(), 'auth-cli-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it.each([['--help'], ['help'], ['-h'], []])(
    '%s lists every command, migrate and migrate:status included, and opens nothing',
    async (...args: string[]) => {
      // A database that does not answer, and no data folder: listing the commands needs neither.
      const result = await cli(cwd, args, { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      for (const command of [
        'seed',
        'rotate-keys',
        'create-client',
        'revoke-sessions',
        'reset-2fa',
        'create-admin',
        'assign-role',
        'list-roles',
        'migrate ',
        'migrate:status',
      ]) {
        expect(result.stdout).toContain(`  ${command}`);
      }
      expect(existsSync(path.join(cwd, 'data'))).toBe(false);
    },
  );

  it("--version prints the version and opens nothing; a command's --help shows its options", async () => {
    const version = await cli(cwd, ['--version']);
    expect(version).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
    const help = await cli(cwd, ['create-admin', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--email <email>');
    expect(existsSync(path.join(cwd, 'data'))).toBe(false);
  });

  it('says in one line that the database cannot be reached', async () => {
    for (const command of ['list-roles', 'migrate:status']) {
      const result = await cli(cwd, [command], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        'The database cannot be reached (connect ECONNREFUSED 127.0.0.1:1): check DATABASE_URL and that the server runs.\n',
      );
    }
  });

  it('says in one line that the embedded database is in use by a running process', async () => {
    const dataDir = path.join(cwd, 'data');
    mkdirSync(dataDir);
    // The lock a running service holds: a file naming a live process (this test's own).
    writeFileSync(path.join(dataDir, 'embedded-postgres.lock'), String(process.pid));
    const result = await cli(cwd, ['list-roles'], { DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `The embedded database in ${dataDir} is in use by process ${process.pid}. Stop it first, or set DATABASE_URL to share a PostgreSQL server between processes.\n`,
    );
  });

  it('rotate-keys without JWT_SECRET rotates the secret kept in DATA_DIR: the kept one becomes the previous secret', async () => {
    const dataDir = path.join(cwd, 'data-rotate');
    const result = await cli(cwd, ['rotate-keys'], { DATA_DIR: dataDir });
    expect(result.code).toBe(0);
    const kept = readFileSync(path.join(dataDir, 'jwt-secret'), 'utf8');
    expect(result.stdout).toMatch(/^JWT_SECRET=[A-Za-z0-9_-]{64}$/m);
    expect(result.stdout).toContain(`JWT_PREVIOUS_SECRETS=${kept}@`);
  });
});
