import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAIN } from '../support/service-process.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';
import { createDatabase, type TestDatabase } from '../support/test-database.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The machine's own Node, as a new user has it (the project's machines have Node 20 there). */
const SYSTEM_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find(
  (candidate) => spawnSync(candidate, ['-v']).status === 0,
);
const systemVersion = SYSTEM_NODE ? spawnSync(SYSTEM_NODE, ['-v'], { encoding: 'utf8' }).stdout.trim() : '';
const [major, minor] = systemVersion.slice(1).split('.').map(Number);
const systemNodeTooOld = SYSTEM_NODE !== undefined && (major < 22 || (major === 22 && minor < 12));
const onOldNode = systemNodeTooOld ? describe : describe.skip;

/** Runs `command` to its end with only the given environment; output is stdout and stderr, kept apart. */
function run(command: string, args: string[], env: Record<string, string>, cwd = ROOT) {
  return new Promise<{ code: number | null; stdout: string; stderr: string; ms: number }>((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd, env: { HOME: cwd, NO_COLOR: '1', ...env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** Every line of standard output is one JSON object (the service's log format). */
function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON log line: ${line}`);
      }
    });
}

onOldNode(`the README's commands on the machine's own Node (${systemVersion})`, () => {
  const oldNodePath = `${path.dirname(SYSTEM_NODE ?? '/usr/bin/node')}:/usr/bin:/bin`;

  it.each(['start', 'test'])('npm %s stops at once with one line saying what to run', async (script) => {
    const result = await run('npm', [script, '--silent'], { PATH: oldNodePath });
    expect(result.code).not.toBe(0);
    const lines = result.stderr.split('\n').filter((line) => line.length > 0 && !line.startsWith('npm warn'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('source scripts/use-node.sh');
    expect(lines[0]).toContain('22.12');
    // Refused before anything is built or started.
    expect(result.stdout).not.toContain('tsc');
    expect(result.ms).toBeLessThan(30_000);
  });

  describe('the built service started on it anyway', () => {
    let database: TestDatabase;
    let cwd: string;

    beforeAll(async () => {
      database = await createDatabase('seeded');
      cwd = mkdtempSync(path.join(tmpdir(), 'auth-old-node-'));
    });
    afterAll(async () => {
      await database.drop();
      rmSync(cwd, { recursive: true, force: true });
    });

    it('never listens: its self-check cannot sign a token, and it says so in one JSON line', async () => {
      const result = await run(
        SYSTEM_NODE!,
        [MAIN],
        {
          PATH: oldNodePath,
          DATABASE_URL: database.url,
          DATA_DIR: path.join(cwd, 'data'),
          JWT_SECRET: TEST_JWT_SECRET,
          APP_ENV: 'test',
          PORT: '0',
        },
        cwd,
      );
      expect(result.code).toBe(1);
      const lines = jsonLines(result.stdout);
      expect(lines.some((line) => String(line.msg).startsWith('Listening'))).toBe(false);
      const failures = lines.filter((line) => line.level === 'fatal' || line.level === 'error');
      expect(failures).toHaveLength(1);
      expect(failures[0].msg).toContain('Start-up self-check failed');
      expect(result.stdout).not.toMatch(/\n\s+at /);
      expect(result.stderr).toBe('');
    });
  });
});

describe('a start-up that fails', () => {
  let cwd: string;

  beforeAll(() => {
    cwd = mkdtempSync(path.join(tmpdir(), 'auth-failed-start-'));
  });
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('on an unreachable database: JSON lines only, one of them the failure, no stack, no colours', async () => {
    const result = await run(process.execPath, [MAIN], {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
      JWT_SECRET: TEST_JWT_SECRET,
      APP_ENV: 'production',
      SMS_TRANSPORT: 'webhook',
      SMS_WEBHOOK_URL: 'http://127.0.0.1:1/sms',
      PORT: '0',
    });
    expect(result.code).toBe(1);
    const lines = jsonLines(result.stdout);
    const failures = lines.filter((line) => line.level === 'fatal' || line.level === 'error');
    expect(failures).toEqual([
      expect.objectContaining({ level: 'fatal', msg: 'Failed to start: connect ECONNREFUSED 127.0.0.1:1' }),
    ]);
    expect(result.stdout).not.toContain('\u001b[');
    expect(result.stdout).not.toMatch(/\n\s+at /);
    expect(result.stderr).toBe('');
  });

  it('on bad configuration: one JSON line naming the variable', async () => {
    const result = await run(process.execPath, [MAIN], {
      PATH: process.env.PATH ?? '',
      PORT: 'eighty',
      DATA_DIR: path.join(cwd, 'data'),
    });
    expect(result.code).toBe(1);
    const lines = jsonLines(result.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'fatal' });
    expect(lines[0].msg).toContain('PORT="eighty"');
  });
});
