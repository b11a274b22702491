import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { lockFolder } from '../consumer/consumer-support.js';

function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} failed (${code}):\n${output}`));
    });
  });
}

/**
 * A folder outside the repository with the given npm dependencies installed from the registry
 * and the given files written, as someone who never saw this project would set it up. The folder
 * is named by the digest of its manifest and files, so a run (and later runs) install it once.
 */
export async function scratchProject(
  name: string,
  dependencies: Record<string, string>,
  files: Record<string, string>,
): Promise<string> {
  const manifest = { name, private: true, dependencies };
  const digest = createHash('sha256').update(JSON.stringify({ manifest, files })).digest('hex').slice(0, 16);
  const folder = path.join(os.tmpdir(), `${name}-${digest}`);
  // One install per folder at a time (consumer-support's lock folder): a second worker that needs
  // the same project waits for the first one's install instead of installing it again beside it.
  const release = await lockFolder(`${folder}.lock`, () => existsSync(path.join(folder, '.installed')));
  if (!release) return folder;
  try {
    const building = `${folder}.${process.pid}`;
    await rm(building, { recursive: true, force: true });
    await mkdir(building, { recursive: true });
    await writeFile(path.join(building, 'package.json'), JSON.stringify(manifest, null, 2));
    for (const [file, content] of Object.entries(files)) await writeFile(path.join(building, file), content);
    // A slow registry may take minutes: the tests that install give their beforeAll 15 minutes.
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], building, 600_000);
    await writeFile(path.join(building, '.installed'), '');
    // Complete folders only: a run that died half-way leaves no folder to be reused.
    await rm(folder, { recursive: true, force: true });
    await rename(building, folder);
  } finally {
    await release();
  }
  return folder;
}

export interface RunningProcess {
  output: () => string;
  stop(): Promise<void>;
}

/** Runs `node <script>` in the folder with only the given environment; resolves once `ready` is printed. */
export async function startScript(
  folder: string,
  script: string,
  env: Record<string, string>,
  ready: RegExp,
): Promise<RunningProcess & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, [path.join(folder, script)], {
    cwd: folder,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start in time:\n${output}`)), 30_000);
    const onData = () => {
      const found = ready.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${script} exited before it was ready:\n${output}`));
    });
  });
  return {
    match,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs `node <script>` in the folder to its end and returns what it printed on standard output. */
export function runScript(folder: string, script: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(folder, script)], {
      cwd: folder,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${script} failed (${code}):\n${stdout}${stderr}`));
    });
  });
}
