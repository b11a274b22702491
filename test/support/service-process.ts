import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const MAIN = path.join(ROOT, 'dist/src/main.js');

export interface RunningService {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  /** Resolves with the exit code, or the signal name when Nest re-raised it after a clean shutdown. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * Starts the built service (`node dist/src/main.js`) as a user would, in `cwd`, with only the
 * given environment, and waits until it says where it listens (at most `startMs`; a service
 * that has not said so by then is killed, so it holds no port or data folder after the test).
 * `nodeOptions` go before the entry point (an `--import` that watches the process, say).
 */
export async function startService(
  cwd: string,
  env: Record<string, string>,
  startMs = 45_000,
  nodeOptions: string[] = [],
): Promise<RunningService> {
  return launch([...nodeOptions, MAIN], cwd, env, startMs);
}

/**
 * The node arguments of the README's run command, `npm start`, once the service is built: the
 * README's "Run it" block runs `npm start`, whose script is `npm run build && exec node <flags>
 * dist/src/main.js`; the run has built the service already (e2e tests use the built dist), so the
 * test runs what follows the build, read from package.json so the two cannot drift apart.
 */
export function readmeStartArguments(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('\n## Run it\n')))?.[1] ?? '';
  if (!/(^|&& )npm start\s*$/m.test(block))
    throw new Error(`the README's "Run it" block runs no \`npm start\`:\n${block}`);
  const script = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const run = /^npm run build && exec node ((?:--\S+ )*)dist\/src\/main\.js$/.exec(script);
  if (!run)
    throw new Error(`package.json's start script is not "npm run build && exec node ... dist/src/main.js": ${script}`);
  return [...run[1].split(' ').filter(Boolean), MAIN];
}

/**
 * Starts the built service with the README's run command (`readmeStartArguments`), in `cwd` (where
 * its DATA_DIR, `./data`, goes), with only the given environment; as `startService` otherwise.
 */
export function startServiceAsReadme(
  cwd: string,
  env: Record<string, string>,
  startMs = 60_000,
): Promise<RunningService> {
  return launch(readmeStartArguments(), cwd, env, startMs);
}

async function launch(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  startMs: number,
): Promise<RunningService> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, PORT: '0', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );

  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start in time:\n${output}`));
    }, startMs);

    const onData = () => {
      const match = /Listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${output}`));
    });
  });

  return {
    child,
    baseUrl,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

/** Runs the built service expecting it to exit by itself (e.g. on bad configuration). */
export function runServiceToExit(
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, PORT: '0', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
