/**
 * The consumer side: a Nest 12 application on the packed `@auth-rbac/nest-guard` (the tests'
 * examples/consumer, installed from the tarball outside the repository) in front of the service.
 *
 * - Guarded route (`GET /reports`, Bearer, `contents.view`) against the same route unguarded: the
 *   same list from a `@Public()` route (`GET /reports/sample`), asked with the same Bearer header
 *   (which it ignores), so that the ratio is the guard's cost alone; and, as before, against the
 *   application's open `GET /health` (a smaller body, no header). Medians of three interleaved
 *   rounds with their spread.
 * - Introspection calls the service answered per 1,000 guarded requests in steady state.
 * - The delay from a logout at the service to the first 401 at the consumer, p50 and p99 over 50
 *   logouts, with the event stream and with `revocation: 'introspection'` (cacheTtlMs 5000).
 */
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { installConsumer, startConsumer, type RunningConsumer } from '../test/consumer/consumer-support.js';
import { cpuMicros, medianOf, ROUNDS, round, signIn, sleep } from './support.js';

export interface ConsumerFigures {
  guarded_vs_unguarded_median: number;
  guarded_vs_unguarded_spread: [number, number];
  guarded_vs_open_median: number;
  guarded_vs_open_spread: [number, number];
  guarded_requests_per_second: number;
  /** The consumer's CPU time per request (user + system), medians of the rounds, in microseconds. */
  guarded_cpu_us_per_request: number;
  unguarded_cpu_us_per_request: number;
  open_cpu_us_per_request: number;
  introspections_per_1000_guarded: number;
  logout_to_401_events_ms: { p50: number; p99: number; count: number; missed: number };
  logout_to_401_introspection_ms: { p50: number; p99: number; count: number; missed: number };
}

interface Setup {
  base: string;
  env: Record<string, string>;
  adminEmail: string;
}

const LOGOUTS = 50;

async function call(base: string, method: string, route: string, token?: string, body?: unknown) {
  const res = await fetch(base + route, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json().catch(() => null)) as { data?: Record<string, unknown> } | null,
  };
}

/** A new user holding a role with `contents.view`, signed in. */
async function viewer(base: string, admin: string, roleId: string): Promise<string> {
  const email = `viewer-${randomUUID()}@bench.example.com`;
  const password = `Bench-Viewer-${randomUUID()}`;
  const registered = await call(base, 'POST', '/api/auth/register', undefined, {
    name: 'Viewer',
    email,
    password,
    password_confirmation: password,
  });
  const id = (registered.body?.data?.user as { id: string }).id;
  await call(base, 'POST', `/api/admin/users/${id}/roles`, admin, { role_ids: [roleId] });
  return (await signIn(base, email, password)).access_token;
}

const introspections = async (base: string) =>
  ((await (await fetch(`${base}/api/bench/introspections`)).json()) as { data: { count: number } }).data.count;

const status = (consumer: RunningConsumer, token: string) =>
  fetch(`${consumer.baseUrl}/reports`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => {
    await res.arrayBuffer();
    return res.status;
  });

function quantiles(values: number[]): { p50: number; p99: number; count: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)], 1);
  return { p50: at(0.5), p99: at(0.99), count: sorted.length };
}

/** Logout → first 401, `LOGOUTS` times, ten at once (each measured on its own). */
async function logoutDelays(base: string, consumer: RunningConsumer, admin: string, roleId: string) {
  const delays: number[] = [];
  let missed = 0;
  for (let batch = 0; batch < LOGOUTS / 10; batch++) {
    const tokens = await Promise.all(Array.from({ length: 10 }, () => viewer(base, admin, roleId)));
    for (const token of tokens) if ((await status(consumer, token)) !== 200) throw new Error('viewer refused');
    await Promise.all(
      tokens.map(async (token) => {
        const loggedOut = await call(base, 'POST', '/api/auth/logout', token, {});
        if (loggedOut.status !== 200) throw new Error(`logout answered ${loggedOut.status}`);
        const started = performance.now();
        while ((await status(consumer, token)) !== 401) {
          // Counted, not waited for: a revocation the consumer missed stays missed until its token expires.
          if (performance.now() - started > 10_000) {
            missed++;
            return;
          }
          await sleep(2);
        }
        delays.push(performance.now() - started);
      }),
    );
  }
  return { ...quantiles(delays), missed };
}

export async function measureConsumer({ base, env, adminEmail }: Setup): Promise<ConsumerFigures> {
  const folder = await installConsumer(12);
  const [clientId, clientSecret] = env.SERVICE_CLIENTS.split(':');
  const common = {
    AUTH_URL: base,
    AUTH_CLIENT_ID: clientId,
    AUTH_CLIENT_SECRET: clientSecret,
    AUTH_JWT_SECRET: env.JWT_SECRET,
  };
  const events = await startConsumer(folder, common);
  const polled = await startConsumer(folder, { ...common, AUTH_REVOCATION: 'introspection' });
  try {
    const admin = (await signIn(base, adminEmail, env.SEED_ADMIN_PASSWORD)).access_token;
    const permissions = await call(base, 'GET', '/api/admin/permissions', admin);
    const contentsView = (permissions.body?.data?.items as { id: string; name: string }[]).find(
      (permission) => permission.name === 'contents.view',
    )!;
    const role = await call(base, 'POST', '/api/admin/roles', admin, {
      name: `bench_viewers_${randomUUID().slice(0, 8)}`,
      permission_ids: [contentsView.id],
    });
    const roleId = role.body?.data?.id as string;
    while (!((await (await fetch(`${events.baseUrl}/health/auth`)).json()) as { data: { fresh: boolean } }).data.fresh)
      await sleep(50);

    const token = await viewer(base, admin, roleId);
    const guardedOptions = { url: `${events.baseUrl}/reports`, headers: { authorization: `Bearer ${token}` } };
    const unguardedOptions = { ...guardedOptions, url: `${events.baseUrl}/reports/sample` };
    const openOptions = { url: `${events.baseUrl}/health` };
    for (const options of [guardedOptions, unguardedOptions, openOptions])
      await autocannon({ ...options, connections: 10, duration: 2 });
    const ratios: number[] = [];
    const unguardedRatios: number[] = [];
    const guardedCpu: number[] = [];
    const unguardedCpu: number[] = [];
    const openCpu: number[] = [];
    let guardedRequests = 0;
    let guardedRps = 0;
    /** One load of the consumer, with its CPU time per request. */
    const load = async (options: autocannon.Options) => {
      const cpuBefore = cpuMicros(events.pid);
      const result = await autocannon({ ...options, connections: 10, duration: 5 });
      return { result, cpu: (cpuMicros(events.pid) - cpuBefore) / result.requests.total };
    };
    const before = await introspections(base);
    for (let roundNo = 0; roundNo < ROUNDS; roundNo++) {
      const guarded = await load(guardedOptions);
      const unguarded = await load(unguardedOptions);
      const open = await load(openOptions);
      guardedRequests += guarded.result.requests.total;
      guardedRps += guarded.result.requests.average / ROUNDS;
      unguardedRatios.push(guarded.result.requests.average / unguarded.result.requests.average);
      ratios.push(guarded.result.requests.average / open.result.requests.average);
      guardedCpu.push(guarded.cpu);
      unguardedCpu.push(unguarded.cpu);
      openCpu.push(open.cpu);
      console.log(
        `  consumer round ${roundNo + 1}: guarded ${round(guarded.result.requests.average)} req/s (${round(guarded.cpu, 0)} µs CPU a request), ` +
          `unguarded ${round(unguarded.result.requests.average)} req/s (${round(unguarded.cpu, 0)} µs), ` +
          `open /health ${round(open.result.requests.average)} req/s (${round(open.cpu, 0)} µs)`,
      );
    }
    const calls = (await introspections(base)) - before;
    const ratio = medianOf(ratios);
    const unguardedRatio = medianOf(unguardedRatios);

    const viaEvents = await logoutDelays(base, events, admin, roleId);
    const viaIntrospection = await logoutDelays(base, polled, admin, roleId);
    return {
      guarded_vs_unguarded_median: unguardedRatio.median,
      guarded_vs_unguarded_spread: unguardedRatio.spread,
      guarded_vs_open_median: ratio.median,
      guarded_vs_open_spread: ratio.spread,
      guarded_requests_per_second: round(guardedRps),
      guarded_cpu_us_per_request: medianOf(guardedCpu, 0).median,
      unguarded_cpu_us_per_request: medianOf(unguardedCpu, 0).median,
      open_cpu_us_per_request: medianOf(openCpu, 0).median,
      introspections_per_1000_guarded: round((calls / guardedRequests) * 1000, 3),
      logout_to_401_events_ms: viaEvents,
      logout_to_401_introspection_ms: viaIntrospection,
    };
  } finally {
    await events.stop();
    await polled.stop();
  }
}
