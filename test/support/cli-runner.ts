import { spawn } from 'node:child_process';
import path from 'node:path';
import { TEST_JWT_SECRET } from './test-config.js';
import { fileDatabase } from './test-database.js';

const CLI = path.resolve(import.meta.dirname, '../../dist/src/cli/main.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI (`node dist/src/cli/main.js ...args`, as `npm run cli` does) on
 * `databaseUrl`, feeding `input` on standard input, with the tests' secret and a cheap hash.
 */
export function runCli(
  databaseUrl: string,
  args: string[],
  input = '',
  env: Record<string, string> = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: {
        PATH: process.env.PATH,
        APP_ENV: 'test',
        DATABASE_URL: databaseUrl,
        DB_MIGRATIONS_RUN: 'false',
        JWT_SECRET: TEST_JWT_SECRET,
        ARGON2_MEMORY_KIB: '1024',
        ARGON2_ITERATIONS: '1',
        LOG_LEVEL: 'error',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** A failure is one line on standard error, nothing on standard output, and a non-zero exit. */
export function expectOneLineFailure(result: CliResult, line: string): void {
  expect({ failed: result.code !== 0, stderr: result.stderr.trim(), stdout: result.stdout }).toEqual({
    failed: true,
    stderr: line,
    stdout: '',
  });
}

/**
 * Runs the built CLI as an operator would, on the test file's database, with `env` over the
 * defaults; `output` is what it wrote to standard output, then to standard error.
 */
export async function cliOnTestDatabase(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const { code, stdout, stderr } = await runCli((await fileDatabase()).url, args, '', env);
  return { code, output: stdout + stderr };
}
