/**
 * `npm run bench:profile`: where a guarded request's time goes, on both sides of the guard
 * package. Starts the benchmark's build of the service (bench/bench-app.ts) on a new PostgreSQL
 * database, and a Nest 12 consumer on the packed package (examples/consumer) in front of it;
 * loads `GET /api/auth/me` (Bearer) on the service and `GET /reports` (Bearer, `contents.view`)
 * on the consumer with autocannon, 10 connections, and takes a V8 CPU profile of each process
 * during its load only (the profile `node --cpu-prof` writes, started and stopped through the
 * inspector so start-up stays out of it). Prints, per process, the CPU time per request (from
 * /proc), the self time by area (the guard package, Nest, Fastify, jose, Node's crypto, garbage
 * collection...) and the functions with the most self time; writes the `.cpuprofile` files to
 * `bench/results/profiles/` (not committed; open them in Chrome DevTools or speedscope).
 *
 * PROFILE_SECONDS (default 10) sets the length of each load; DATABASE_URL names the server.
 */
import autocannon from 'autocannon';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { installConsumer, startConsumer } from '../test/consumer/consumer-support.js';
import { cpuMicros, createDatabase, postJson, ROOT, round, signIn, sleep, startService } from './support.js';

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 10);
const SERVER_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const OUT = path.join(ROOT, 'bench', 'results', 'profiles');

/**
 * Loaded into the profiled process with `--import`: the first SIGWINCH (a signal Nest's shutdown hooks leave alone) starts the V8 profiler, the
 * second stops it and writes the profile to CPU_PROFILE_OUT.
 */
const PROFILER = `
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
const session = new Session();
session.connect();
let running = false;
process.on('SIGWINCH', async () => {
  if (!running) {
    running = true;
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    return;
  }
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(process.env.CPU_PROFILE_OUT, JSON.stringify(profile));
});
`;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a function lives, by its script's URL. */
function areaOf(url: string, name: string): string {
  if (name === '(garbage collector)') return 'garbage collection';
  if (name === '(idle)') return 'idle';
  if (name === '(program)') return 'V8 and native (program)';
  const library = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (library === '@auth-rbac/nest-guard' || url.includes('/packages/nest-guard/')) return 'the guard package';
  if (library === 'jose') return 'jose';
  if (library === '@nestjs/core' || library === '@nestjs/common') return 'Nest';
  if (
    library &&
    /^(fastify|@fastify\/.*|find-my-way|light-my-request|avvio|fast-json-stringify|secure-json-parse)$/.test(library)
  )
    return 'Fastify';
  if (library === 'rxjs') return 'rxjs';
  if (library?.startsWith('pino') || library === '@pinojs/redact') return 'pino (logging)';
  if (library === '@nestjs/throttler') return 'rate limits (throttler)';
  if (library) return `other packages (${library})`;
  if (url.startsWith('node:internal/crypto') || url.startsWith('node:crypto')) return "Node's crypto";
  if (
    /^node:(internal\/)?(_?http|net|stream|internal\/stream)/.test(url) ||
    url.startsWith('node:internal/stream_base')
  )
    return "Node's HTTP and sockets";
  if (url.startsWith('node:')) return 'Node (other)';
  if (url.includes('/dist/src/')) return 'the service';
  if (url.includes('/dist/')) return 'the consumer or the benchmark';
  return url ? 'other' : 'native';
}

interface Summary {
  totalMs: number;
  areas: [string, number][];
  functions: [string, number][];
}

/**
 * Self time per area and per function, from the samples (the time each node was on top of the
 * stack). A native function (no script) counts in the area of the nearest script that called it:
 * WebCrypto's job in Node's crypto, a socket write in Node's networking. The profiler's own work
 * (its inspector session) is left out.
 */
function summarize(profile: CpuProfile): Summary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const areaOfNode = (id: number): string => {
    const { functionName, url } = byId.get(id)!.callFrame;
    if (url || functionName.startsWith('(')) return areaOf(url, functionName);
    const parent = parentOf.get(id);
    return parent === undefined ? 'native' : areaOfNode(parent);
  };
  const isProfiler = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const { url } = byId.get(at)!.callFrame;
      if (url.endsWith('profiler.mjs') || url === 'node:inspector') return true;
    }
    return false;
  };
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  for (const [id, micros] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const area = areaOfNode(id);
    if (area === 'idle' || isProfiler(id)) continue;
    total += micros;
    areas.set(area, (areas.get(area) ?? 0) + micros);
    const where = url
      ? `${url.replace(/^.*\/node_modules\//, '').replace(/^.*\/dist\//, 'dist/')}:${lineNumber + 1}`
      : `(native, ${area})`;
    const key = `${functionName || '(anonymous)'} ${where}`;
    functions.set(key, (functions.get(key) ?? 0) + micros);
  }
  const sorted = (map: Map<string, number>) =>
    [...map].sort((a, b) => b[1] - a[1]).map(([name, micros]) => [name, round(micros / 1000, 0)] as [string, number]);
  return { totalMs: round(total / 1000, 0), areas: sorted(areas), functions: sorted(functions).slice(0, 25) };
}

interface Profiled {
  name: string;
  requestsPerSecond: number;
  cpuMicrosPerRequest: number;
  summary: Summary;
}

/**
 * CPU time per request of one URL on the process `pid`, measured without the profiler (it costs
 * CPU of its own), after a short warm-up.
 */
async function cpuPerRequest(pid: number, options: autocannon.Options): Promise<{ rps: number; micros: number }> {
  await autocannon({ ...options, connections: 10, duration: 2 });
  const before = cpuMicros(pid);
  const result = await autocannon({ ...options, connections: 10, duration: SECONDS });
  return { rps: round(result.requests.average), micros: round((cpuMicros(pid) - before) / result.requests.total, 0) };
}

/** The route measured (`cpuPerRequest`), then loaded again while `pid` is profiled into `file`. */
async function profileLoad(name: string, pid: number, file: string, options: autocannon.Options): Promise<Profiled> {
  const { rps, micros } = await cpuPerRequest(pid, options);
  process.kill(pid, 'SIGWINCH');
  await sleep(300);
  await autocannon({ ...options, connections: 10, duration: SECONDS });
  process.kill(pid, 'SIGWINCH');
  for (let waited = 0; !existsSync(file) && waited < 30_000; waited += 100) await sleep(100);
  await sleep(200);
  const summary = summarize(JSON.parse(await readFile(file, 'utf8')) as CpuProfile);
  return { name, requestsPerSecond: rps, cpuMicrosPerRequest: micros, summary };
}

function print(profiled: Profiled, baseline?: { name: string; cpuMicrosPerRequest: number }): void {
  console.log(`\n## ${profiled.name}`);
  if (baseline)
    console.log(
      `${profiled.requestsPerSecond} req/s; CPU per request ${profiled.cpuMicrosPerRequest} µs ` +
        `(${baseline.name}: ${baseline.cpuMicrosPerRequest} µs)`,
    );
  console.log(`${profiled.summary.totalMs} ms of samples outside idle`);
  console.log('\nSelf time by area:');
  for (const [area, ms] of profiled.summary.areas.slice(0, 14))
    console.log(`  ${String(round((ms / profiled.summary.totalMs) * 100, 1)).padStart(5)} %  ${area}`);
  console.log('\nFunctions with the most self time:');
  for (const [fn, ms] of profiled.summary.functions)
    console.log(`  ${String(round((ms / profiled.summary.totalMs) * 100, 1)).padStart(5)} %  ${fn}`);
}

async function main(): Promise<void> {
  // `-- --summarize FILE...`: the summary of profiles taken before, nothing run.
  const summarizing = process.argv.indexOf('--summarize');
  if (summarizing >= 0) {
    for (const file of process.argv.slice(summarizing + 1)) {
      const summary = summarize(JSON.parse(await readFile(file, 'utf8')) as CpuProfile);
      print({ name: path.basename(file), requestsPerSecond: NaN, cpuMicrosPerRequest: NaN, summary });
    }
    return;
  }
  await mkdir(OUT, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const preload = path.join(OUT, 'profiler.mjs');
  await writeFile(preload, PROFILER);
  const database = await createDatabase(SERVER_URL);
  const serviceProfile = path.join(OUT, `${stamp}-service-me.cpuprofile`);
  const consumerProfile = path.join(OUT, `${stamp}-consumer-reports.cpuprofile`);
  const env = {
    APP_ENV: 'development',
    DATABASE_URL: database.url,
    SINGLE_INSTANCE: 'true',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_GLOBAL_PER_MINUTE: '100000000',
    INTROSPECT_RATE_PER_MINUTE: '100000000',
    SEED_ADMIN_EMAIL: 'admin@profile.example.com',
    SEED_ADMIN_PASSWORD: `Profile-${randomBytes(12).toString('hex')}`,
    SEED_USER_EMAIL: 'user@profile.example.com',
    SEED_USER_PASSWORD: `Profile-${randomBytes(12).toString('hex')}`,
    SERVICE_CLIENTS: `profile:${randomBytes(24).toString('base64url')}`,
    CPU_PROFILE_OUT: serviceProfile,
  };
  const service = await startService('dist/bench/bench-app.js', env, 120_000, [`--import=${preload}`]);
  const folder = await installConsumer(12);
  const [clientId, clientSecret] = env.SERVICE_CLIENTS.split(':');
  const consumer = await startConsumer(folder, {
    AUTH_URL: service.base,
    AUTH_CLIENT_ID: clientId,
    AUTH_CLIENT_SECRET: clientSecret,
    AUTH_JWT_SECRET: env.JWT_SECRET,
    NODE_OPTIONS: `--import=${preload}`,
    CPU_PROFILE_OUT: consumerProfile,
  });
  try {
    const user = await signIn(service.base, env.SEED_USER_EMAIL, env.SEED_USER_PASSWORD);
    const me = await profileLoad('Service: GET /api/auth/me', service.child.pid!, serviceProfile, {
      url: `${service.base}/api/auth/me`,
      headers: { authorization: `Bearer ${user.access_token}` },
    });
    const bare = (await cpuPerRequest(service.child.pid!, { url: `${service.base}/api/bench/bare` })).micros;

    // A viewer: a new account with a role that holds contents.view.
    const admin = await signIn(service.base, env.SEED_ADMIN_EMAIL, env.SEED_ADMIN_PASSWORD);
    const asAdmin = { authorization: `Bearer ${admin.access_token}` };
    const permissions = (await (await fetch(`${service.base}/api/admin/permissions`, { headers: asAdmin })).json()) as {
      data: { items: { id: string; name: string }[] };
    };
    const view = permissions.data.items.find((permission) => permission.name === 'contents.view')!;
    const role = await postJson(
      service.base,
      '/api/admin/roles',
      { name: `profile_viewers_${randomUUID().slice(0, 8)}`, permission_ids: [view.id] },
      asAdmin,
    );
    const email = `viewer-${randomUUID()}@profile.example.com`;
    const password = `Profile-Viewer-${randomUUID()}`;
    const registered = (await postJson(service.base, '/api/auth/register', {
      name: 'Viewer',
      email,
      password,
      password_confirmation: password,
    })) as unknown as { body: { data: { user: { id: string } } } };
    await postJson(
      service.base,
      `/api/admin/users/${registered.body.data.user.id}/roles`,
      { role_ids: [(role.body as unknown as { data: { id: string } }).data.id] },
      asAdmin,
    );
    const viewer = await signIn(service.base, email, password);
    while (
      !((await (await fetch(`${consumer.baseUrl}/health/auth`)).json()) as { data: { fresh: boolean } }).data.fresh
    )
      await sleep(50);
    const reports = await profileLoad('Consumer: GET /reports', consumer.pid, consumerProfile, {
      url: `${consumer.baseUrl}/reports`,
      headers: { authorization: `Bearer ${viewer.access_token}` },
    });
    const open = (await cpuPerRequest(consumer.pid, { url: `${consumer.baseUrl}/health` })).micros;

    print(me, { name: 'bare route', cpuMicrosPerRequest: bare });
    print(reports, { name: 'open GET /health', cpuMicrosPerRequest: open });
    console.log(`\nProfiles: ${path.relative(ROOT, serviceProfile)}, ${path.relative(ROOT, consumerProfile)}`);
  } finally {
    await consumer.stop();
    await service.stop();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  console.error('Profiling failed:', error);
  process.exit(1);
});
