import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { DataSource } from 'typeorm';

export const ROOT = path.resolve(import.meta.dirname, '../..');
const EXAMPLE_MAIN = path.join(ROOT, 'dist/examples/consumer/main.js');

/**
 * Compiles examples/consumer against the built library (dist/src/index.d.ts, through the
 * package's own name and `exports`), as `npm run build:example` does.
 */
export function buildExample(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'examples/consumer/tsconfig.json'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the example did not compile:\n${output}`))));
  });
}

export interface RunningConsumer {
  baseUrl: string;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts the compiled example (`node dist/examples/consumer/main.js`) with only the given environment. */
export async function startConsumer(env: Record<string, string>): Promise<RunningConsumer> {
  const child: ChildProcess = spawn(process.execPath, [EXAMPLE_MAIN], {
    cwd: ROOT,
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

async function postJson(url: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

export async function registerUser(authUrl: string): Promise<TestUser> {
  const email = `consumer-${randomUUID()}@example.com`;
  const password = `correct-horse-${randomUUID()}`;
  const res = await postJson(`${authUrl}/api/auth/register`, { name: 'Consumer Test', email, password, password_confirmation: password });
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
    if (linked.length !== new Set(permissions).size) throw new Error(`unknown permission among ${permissions.join(', ')}`);
    await manager.query(`INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2)`, [userId, role.id]);
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
