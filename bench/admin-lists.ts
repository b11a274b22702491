/**
 * `npm run bench`: the admin users list over 300,000 users, against GET /health measured in the
 * same run on the same machine, so the ratios mean something wherever it runs. Starts the built
 * service on a fresh PostgreSQL database (dropped at the end), inserts the users, warms up, then
 * measures each scenario for a few seconds with autocannon. Bounded: well under two minutes.
 *
 * DATABASE_URL names the server (default postgres://postgres@127.0.0.1:5432/postgres); the
 * database in it is only used to create and drop the benchmark's own.
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { insertBulkUsers } from '../test/support/bulk-users.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SERVER_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const USERS = 300_000;
/** Within ADMIN_LIST_CONCURRENCY's default (4), so the lists are measured, not the 429s. */
const CONNECTIONS = 4;
const WARMUP_SECONDS = 2;
const MEASURE_SECONDS = 6;
/** Requests still in flight when autocannon stops would hold the cap's slots into the next run. */
const DRAIN_MS = 1_000;

interface Scenario {
  name: string;
  path: string;
  admin: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: 'baseline: GET /health', path: '/health', admin: false },
  { name: 'users, first page', path: '/api/admin/users?page=1&limit=20', admin: true },
  { name: 'users, page 5000', path: '/api/admin/users?page=5000&limit=20', admin: true },
  { name: 'users, 100 a page', path: '/api/admin/users?page=42&limit=100', admin: true },
  { name: 'users, search by email', path: '/api/admin/users?search=bench-123456%40', admin: true },
  { name: 'users, search by name', path: `/api/admin/users?search=${encodeURIComponent('bench 29999')}`, admin: true },
];

interface Figures {
  scenario: string;
  path: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
  non_2xx: number;
  errors: number;
  rps_ratio_to_baseline: number;
  mean_latency_ratio_to_baseline: number;
}

async function main(): Promise<void> {
  const database = await createDatabase(SERVER_URL);
  let service: ChildProcess | undefined;
  try {
    const port = await freePort();
    const adminPassword = `Bench-${randomBytes(12).toString('hex')}`;
    service = startService(database.url, port, adminPassword);
    const base = `http://127.0.0.1:${port}`;
    await waitUntilReady(base, service);

    const started = Date.now();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await insertBulkUsers(client, USERS, { prefix: 'bench', roleNames: ['user'], roleEvery: 5 });
    } finally {
      await client.end();
    }
    console.log(`Inserted ${USERS.toLocaleString('en')} users in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const token = await signIn(base, 'admin@bench.example.com', adminPassword);
    const results: { scenario: Scenario; result: autocannon.Result }[] = [];
    for (const scenario of SCENARIOS) {
      const headers = scenario.admin ? { authorization: `Bearer ${token}` } : undefined;
      await measure(base + scenario.path, headers, WARMUP_SECONDS);
      await sleep(DRAIN_MS);
      results.push({ scenario, result: await measure(base + scenario.path, headers, MEASURE_SECONDS) });
      await sleep(DRAIN_MS);
    }

    const baseline = results[0].result;
    const figures: Figures[] = results.map(({ scenario, result }) => ({
      scenario: scenario.name,
      path: scenario.path,
      requests_per_second: round(result.requests.average),
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
      mean_ms: round(result.latency.mean, 2),
      non_2xx: result.non2xx,
      errors: result.errors,
      rps_ratio_to_baseline: round(result.requests.average / baseline.requests.average, 3),
      // The mean, not p50: autocannon reports whole milliseconds, and /health's p50 is often 0.
      mean_latency_ratio_to_baseline: round(result.latency.mean / Math.max(baseline.latency.mean, 0.01), 1),
    }));
    console.table(
      figures.map((f) => ({
        scenario: f.scenario,
        'req/s': f.requests_per_second,
        'p50 ms': f.p50_ms,
        'p99 ms': f.p99_ms,
        'mean ms': f.mean_ms,
        'req/s vs /health': f.rps_ratio_to_baseline,
        'mean latency vs /health': f.mean_latency_ratio_to_baseline,
        'non-2xx': f.non_2xx,
      })),
    );
    const resultsDir = path.join(ROOT, 'bench', 'results');
    await mkdir(resultsDir, { recursive: true });
    const report = {
      date: new Date().toISOString(),
      node: process.version,
      users: USERS,
      connections: CONNECTIONS,
      seconds_per_scenario: MEASURE_SECONDS,
      figures,
    };
    await writeFile(path.join(resultsDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`Written to bench/results/latest.json`);
    const failed = figures.filter((f) => f.non_2xx > 0 || f.errors > 0);
    if (failed.length > 0) {
      console.error(`Some requests failed: ${failed.map((f) => f.scenario).join(', ')}`);
      process.exitCode = 1;
    }
  } finally {
    await stopService(service);
    await database.drop();
  }
}

function measure(url: string, headers: Record<string, string> | undefined, duration: number): Promise<autocannon.Result> {
  return autocannon({ url, headers, connections: CONNECTIONS, duration });
}

async function createDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `auth_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdminClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

async function withAdminClient<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function startService(databaseUrl: string, port: number, adminPassword: string): ChildProcess {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/src/main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      APP_ENV: 'test',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      JWT_SECRET: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'warn',
      // The benchmark is one client address; the per-address limits would measure themselves.
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_GLOBAL_PER_MINUTE: '100000000',
      SEED_ADMIN_EMAIL: 'admin@bench.example.com',
      SEED_ADMIN_PASSWORD: adminPassword,
      SEED_USER_EMAIL: 'user@bench.example.com',
      SEED_USER_PASSWORD: `Bench-${randomBytes(12).toString('hex')}`,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

async function waitUntilReady(base: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The service exited with ${child.exitCode} during start`);
    const ok = await fetch(`${base}/health/ready`).then((res) => res.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('The service did not become ready within 30 s');
}

async function signIn(base: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const body = (await res.json()) as { data?: { access_token?: string } };
  if (!res.ok || !body.data?.access_token) throw new Error(`Sign-in failed with ${res.status}`);
  return body.data.access_token;
}

async function stopService(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

main().catch((error: unknown) => {
  console.error('Benchmark failed:', error);
  process.exit(1);
});
