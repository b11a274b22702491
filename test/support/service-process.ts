import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const MAIN = path.resolve(import.meta.dirname, '../../dist/src/main.js');

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
 */
export async function startService(
  cwd: string,
  env: Record<string, string>,
  startMs = 45_000,
): Promise<RunningService> {
  const child = spawn(process.execPath, [MAIN], {
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
