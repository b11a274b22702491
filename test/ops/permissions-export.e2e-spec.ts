import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileDatabase, type TestDatabase } from '../support/test-database.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';

const CLI = path.resolve(import.meta.dirname, '../../dist/src/cli/main.js');
const run = promisify(execFile);

describe('permissions:export', () => {
  let database: TestDatabase;
  beforeAll(async () => void (database = await fileDatabase()));

  const cli = (args: string[]) =>
    run(process.execPath, [CLI, 'permissions:export', ...args], {
      env: {
        PATH: process.env.PATH,
        APP_ENV: 'test',
        DATABASE_URL: database.url,
        DB_MIGRATIONS_RUN: 'false',
        JWT_SECRET: TEST_JWT_SECRET,
      },
    });

  it('prints the typed module on standard output and nothing else: as const, a union type, the registry', async () => {
    const { stdout, stderr } = await cli(['--format', 'ts']);
    expect(stderr).toBe('');
    expect(stdout.split('\n').slice(0, 4)).toEqual([
      '// The permissions of the auth service, written by `npm run cli -- permissions:export --format ts`.',
      '// Regenerate it when permissions change; do not edit it by hand.',
      '',
      'export const PERMISSIONS = [',
    ]);
    expect(stdout).toContain('  "contents.view",\n');
    expect(stdout).toContain('  "users.edit",\n');
    // The organization permissions too: a consumer's routes guarded per organization name them.
    expect(stdout).toContain('  "members.view",\n');
    expect(stdout).toContain('  "organization.edit",\n');
    expect(stdout).toContain('] as const;\n\nexport type AppPermission = (typeof PERMISSIONS)[number];\n');
    expect(stdout).toContain(
      "declare module '@auth-rbac/nest-guard' {\n  interface PermissionRegistry extends Record<AppPermission, true> {}\n}\n",
    );
  });

  it('writes the same module to --out, and refuses another format in one line', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'permissions-export-'));
    try {
      const out = path.join(folder, 'permissions.ts');
      const written = await cli(['--format', 'ts', '--out', out]);
      expect(written.stdout).toBe('');
      expect(await readFile(out, 'utf8')).toBe((await cli([])).stdout);
      const refused = await cli(['--format', 'json']).catch((error: { code: number; stderr: string }) => error);
      expect(refused).toMatchObject({ code: 1, stderr: 'Unknown format "json": the one format is ts.\n' });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
