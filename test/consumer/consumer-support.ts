import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';

/** The repository: two folders up from here, three when this file runs compiled under dist/ (the benchmark). */
export const ROOT = path.resolve(
  import.meta.dirname,
  path.basename(path.resolve(import.meta.dirname, '../..')) === 'dist' ? '../../..' : '../..',
);
const EXAMPLE = path.join(ROOT, 'examples/consumer');

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
 * The package as a consumer gets it: `npm pack` of packages/nest-guard (its `prepack` builds it),
 * installed from the tarball into a fresh folder outside the repository together with Nest of the
 * given major from the npm registry, with examples/consumer's sources compiled there. The folder
 * is named by the tarball's digest, so the tests of a run (and later runs of the same package)
 * install each major once.
 */
export async function installConsumer(nestMajor: 11 | 12): Promise<string> {
  const packing = await mkdtemp(path.join(os.tmpdir(), 'nest-guard-pack-'));
  await run('npm', ['pack', '--pack-destination', packing], path.join(ROOT, 'packages/nest-guard'), 120_000);
  const packed = path.join(
    packing,
    (await readdir(packing)).find((name) => name.endsWith('.tgz'))!,
  );
  // The folder is named for what it is built from: the packed package and the example's sources.
  const hash = createHash('sha256').update(await readFile(packed));
  for (const file of [
    'package.json',
    'tsconfig.json',
    ...(await readdir(path.join(EXAMPLE, 'src'))).sort().map((name) => `src/${name}`),
  ])
    hash.update(file).update(await readFile(path.join(EXAMPLE, file)));
  const digest = hash.digest('hex').slice(0, 16);
  const folder = path.join(os.tmpdir(), `nest-guard-consumer-${nestMajor}-${digest}`);
  // One install per folder at a time: the workers of a run that need the same consumer wait for
  // the first one's install instead of installing it again beside it (and replacing the folder
  // under a consumer that already runs from it).
  const release = await lockFolder(`${folder}.lock`, () => existsSync(path.join(folder, 'dist/main.js')));
  if (!release) {
    await rm(packing, { recursive: true, force: true });
    return folder;
  }
  try {
    await build(folder, packing, packed, nestMajor);
  } finally {
    await release();
  }
  return folder;
}

/**
 * Takes the lock folder `lock` (mkdir is atomic), waiting while another live process holds it,
 * unless `done()` becomes true meanwhile (then answers null: nothing left to do). A lock whose
 * holder died is taken over.
 */
export async function lockFolder(lock: string, done: () => boolean): Promise<(() => Promise<void>) | null> {
  for (;;) {
    if (done()) return null;
    try {
      await mkdir(lock);
      await writeFile(path.join(lock, 'pid'), String(process.pid));
      return () => rm(lock, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await holderIsGone(lock)) {
      await rm(lock, { recursive: true, force: true });
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

async function holderIsGone(lock: string): Promise<boolean> {
  let pid: number;
  try {
    pid = Number(await readFile(path.join(lock, 'pid'), 'utf8'));
  } catch {
    // Between the holder's mkdir and its pid file: alive unless the folder is old.
    try {
      return Date.now() - (await stat(lock)).mtimeMs > 60_000;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function build(folder: string, packing: string, packed: string, nestMajor: 11 | 12): Promise<void> {
  const building = `${folder}.${process.pid}`;
  await rm(building, { recursive: true, force: true });
  await mkdir(building, { recursive: true });
  const tarball = path.join(building, path.basename(packed));
  await cp(packed, tarball);
  await rm(packing, { recursive: true, force: true });
  const example = JSON.parse(await readFile(path.join(EXAMPLE, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const nest = `^${nestMajor}.0.0`;
  const manifest = {
    name: `nest-guard-consumer-${nestMajor}`,
    private: true,
    type: 'module',
    dependencies: {
      ...example.dependencies,
      '@auth-rbac/nest-guard': `file:./${path.basename(tarball)}`,
      '@nestjs/common': nest,
      '@nestjs/core': nest,
      '@nestjs/platform-fastify': nest,
    },
    devDependencies: example.devDependencies,
  };
  await writeFile(path.join(building, 'package.json'), JSON.stringify(manifest, null, 2));
  await cp(path.join(EXAMPLE, 'src'), path.join(building, 'src'), { recursive: true });
  await cp(path.join(EXAMPLE, 'tsconfig.json'), path.join(building, 'tsconfig.json'));
  // A slow registry may take minutes; the tests that install give their beforeAll 15 minutes.
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], building, 600_000);
  await run(
    process.execPath,
    [path.join(building, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
    building,
    120_000,
  );
  // Complete folders only: a run that died half-way leaves no folder to be reused.
  await rm(folder, { recursive: true, force: true });
  await rename(building, folder);
}

/** The Nest version a consumer folder installed. */
export async function installedNestVersion(folder: string): Promise<string> {
  return (
    JSON.parse(await readFile(path.join(folder, 'node_modules/@nestjs/core/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
}

export interface RunningConsumer {
  baseUrl: string;
  /** The consumer's process id (the benchmark reads its CPU time and profiles it). */
  pid: number;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts the compiled consumer (`node dist/main.js` in its folder) with only the given environment. */
export async function startConsumer(folder: string, env: Record<string, string>): Promise<RunningConsumer> {
  const child: ChildProcess = spawn(process.execPath, [path.join(folder, 'dist/main.js')], {
    cwd: folder,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the consumer did not start in time:\n${output}`)), 30_000);
    const onData = () => {
      const match = /Listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the consumer exited before listening:\n${output}`));
    });
  });
  return {
    baseUrl,
    pid: child.pid!,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
}

/** The fields of the service's JSON answers that these helpers read. */
interface AnswerBody {
  data: { user: { id: string }; access_token: string; refresh_token: string };
}

async function postJson(url: string, body: unknown, token?: string): Promise<{ status: number; body: AnswerBody }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as AnswerBody };
}

export async function registerUser(authUrl: string): Promise<TestUser> {
  const email = `consumer-${randomUUID()}@example.com`;
  const password = `correct-horse-${randomUUID()}`;
  const res = await postJson(`${authUrl}/api/auth/register`, {
    name: 'Consumer Test',
    email,
    password,
    password_confirmation: password,
  });
  if (res.status !== 201) throw new Error(`register answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { id: res.body.data.user.id, email, password };
}

/** A fresh login: a new session, so nothing cached about an earlier one applies. */
export async function login(authUrl: string, user: TestUser): Promise<{ accessToken: string; refreshToken: string }> {
  const res = await postJson(`${authUrl}/api/auth/login`, { email: user.email, password: user.password });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { accessToken: res.body.data.access_token, refreshToken: res.body.data.refresh_token };
}

export async function logout(authUrl: string, accessToken: string): Promise<number> {
  return (await postJson(`${authUrl}/api/auth/logout`, {}, accessToken)).status;
}

/**
 * Gives the user a new role holding the named permissions, straight in SQL. Do it before
 * logging in: the service caches a session's permissions and SQL does not tell it.
 */
export async function grantPermissions(dataSource: DataSource, userId: string, permissions: string[]): Promise<void> {
  await dataSource.transaction(async (manager) => {
    const [role] = await manager.query(`INSERT INTO roles (name, display_name) VALUES ($1, $1) RETURNING id`, [
      `consumer_test_${randomUUID()}`,
    ]);
    const linked: unknown[] = await manager.query(
      `INSERT INTO role_permissions (role_id, permission_id) SELECT $1, id FROM permissions WHERE name = ANY($2::varchar[])
       RETURNING permission_id`,
      [role.id, permissions],
    );
    if (linked.length !== new Set(permissions).size)
      throw new Error(`unknown permission among ${permissions.join(', ')}`);
    await manager.query(`INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2)`, [userId, role.id]);
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
