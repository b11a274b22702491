/** What the benchmark's parts share: databases, the service process, autocannon, figures. */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export async function createDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `auth_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  base: string;
  /**
   * The highest resident set size seen so far (the kernel's VmHWM), in MB, leaving out what ran
   * inside `outsideThePeak`.
   */
  peakRssMb(): number;
  /**
   * Runs work that is not the service's own (a baseline that lives in the bench build), then
   * starts the kernel's peak afresh, so that work's memory does not count as the service's peak.
   */
  outsideThePeak<T>(work: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Node's options from the `start:prod` script (the Dockerfile's CMD is checked against it), so
 * the benchmark measures the service as it is started: heap sizes and compiler choices are part
 * of its memory and speed.
 */
export function serviceNodeOptions(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const [command, ...args] = pkg.scripts['start:prod']!.split(/\s+/);
  if (command !== 'node') throw new Error(`start:prod does not start node: ${pkg.scripts['start:prod']}`);
  return args.filter((arg) => arg.startsWith('--'));
}

/**
 * Starts a built entry point (`dist/...`) with exactly `env` (plus PATH) and the Node options of
 * `start:prod`, and waits until it is ready.
 */
export async function startService(
  entry: string,
  env: Record<string, string>,
  readyWithinMs = 120_000,
  extraNodeOptions: string[] = [],
): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...serviceNodeOptions(), ...extraNodeOptions, path.join(ROOT, entry)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  let peakBefore = 0;
  const service: ServiceProcess = {
    child,
    base,
    peakRssMb: () => Math.max(peakBefore, peakRssMb(child.pid!)),
    async outsideThePeak(work) {
      peakBefore = service.peakRssMb();
      try {
        return await work();
      } finally {
        // 5: reset the peak to the present resident size (proc(5), clear_refs).
        writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
      }
    },
    stop: () => stopService(child),
  };
  try {
    await waitUntilReady(base, child, readyWithinMs);
  } catch (error) {
    await service.stop();
    throw error;
  }
  return service;
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? round(Number(match[1]) / 1024, 0) : NaN;
}

async function waitUntilReady(base: string, child: ChildProcess, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The service exited with ${child.exitCode} during start`);
    const ok = await fetch(`${base}/health/ready`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`The service did not become ready within ${withinMs / 1000} s`);
}

async function stopService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** The fields of the service's JSON answers that the bench reads (null: the body was not JSON). */
type AnswerBody = {
  data?: { access_token: string; refresh_token: string; requires_otp?: boolean; temp_token?: string };
} | null;

export async function postJson(
  base: string,
  route: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: AnswerBody }> {
  const res = await fetch(base + route, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as AnswerBody };
}

/** Signs in with a password (and, when asked for, the development second-factor code). */
export async function signIn(
  base: string,
  email: string,
  password: string,
): Promise<{ access_token: string; refresh_token: string }> {
  const first = await postJson(base, '/api/auth/login', { email, password });
  let data = first.body?.data;
  if (first.status === 200 && data?.requires_otp) {
    data = (await postJson(base, '/api/auth/otp/verify-2fa', { temp_token: data.temp_token, code: '123456' })).body
      ?.data;
  }
  if (!data?.access_token) throw new Error(`Sign-in failed with ${first.status}`);
  return data;
}

export interface Load {
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

/**
 * Warms up, then measures; in-flight requests are left to drain between runs. `beforeMeasuring`
 * runs just before the measured part starts (to read a process's CPU time, say).
 */
export async function measure(
  options: autocannon.Options,
  load: Load,
  beforeMeasuring?: () => void,
): Promise<autocannon.Result> {
  if (load.warmupSeconds > 0)
    await autocannon({ ...options, connections: load.connections, duration: load.warmupSeconds });
  await sleep(300);
  beforeMeasuring?.();
  const result = await autocannon({ ...options, connections: load.connections, duration: load.seconds });
  await sleep(300);
  return result;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** A timed loop of one async step, for flows of several requests that autocannon cannot chain. */
export async function timedLoop(
  seconds: number,
  step: () => Promise<void>,
): Promise<{ count: number; per_second: number; p50_ms: number; p99_ms: number }> {
  const times: number[] = [];
  const end = Date.now() + seconds * 1000;
  const started = Date.now();
  while (Date.now() < end) {
    const t0 = performance.now();
    await step();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => round(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN, 1);
  return {
    count: times.length,
    per_second: round(times.length / ((Date.now() - started) / 1000)),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
  };
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/**
 * CPU time a process has used so far (user + system), in microseconds, from /proc/<pid>/stat:
 * divided by the requests it served meanwhile, a cost per request that other work on a shared
 * machine moves far less than it moves requests per second.
 */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / USER_HZ;
}

/** Rounds of each comparison, interleaved (A, B, A, B...): every ratio printed is their median. */
export const ROUNDS = 3;

/** A ratio over interleaved rounds: its median, and the lowest and highest round. */
export interface RoundedRatio {
  median: number;
  spread: [number, number];
}

/** The median of the rounds' values, with their spread. */
export function medianOf(values: number[], digits = 3): RoundedRatio {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: round(sorted[Math.floor((sorted.length - 1) / 2)], digits),
    spread: [round(sorted[0], digits), round(sorted[sorted.length - 1], digits)],
  };
}
