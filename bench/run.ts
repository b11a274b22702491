/**
 * `npm run bench` (`-- --embedded` for the embedded database): the service measured against its
 * own limits, as ratios to baselines taken in the same run on the same machine, so that the
 * figures mean something wherever it runs. Prints one table and writes its figures as JSON into
 * bench/results/: latest.json (not committed) and a file named by the date and database, which
 * `npm run bench:docs` renders into docs/performance.md once committed.
 *
 * - A guarded route (GET /api/auth/me, Bearer) against baseline A (a bare route of the same build)
 *   and baseline B (the same route behind a guard that only verifies the token's signature).
 * - Sign-in by email and password at 1 and 4 connections against baseline C (one raw Argon2id
 *   verify with the service's parameters, in the same process, at the same concurrency).
 * - Refresh rotation, the second-factor sign-in end to end, introspection when the service has it.
 * - The OpenID provider: authorization-code round trips (authorize → code → token) of a browser
 *   that has a sign-in, against the password sign-in measured the same way; the token endpoint's
 *   client_credentials grants against baseline A.
 * - The admin users list over 300,000 users (30,000 on the embedded database) against /health.
 * - Peak resident memory of the service, and of the embedded database's first start and restart.
 *
 * The baselines exist only in the benchmark's build (bench/bench-app.ts). DATABASE_URL names the
 * PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres), where the benchmark
 * creates and drops a database of its own. REDIS_URL, when set, is handed to the service.
 * Nothing here fails on a figure: the benchmark prints, people judge.
 */
import type autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { measureAdminLists, type AdminListFigures } from './admin-lists.js';
import { measureConsumer } from './consumer.js';
import { measureOrganizations } from './organizations.js';
import { codeRoundTrip } from './provider.js';
import {
  cpuMicros,
  createDatabase,
  medianOf,
  ROUNDS,
  measure,
  postJson,
  ROOT,
  round,
  signIn,
  startService,
  timedLoop,
  type Load,
  type ServiceProcess,
} from './support.js';

const EMBEDDED = process.argv.includes('--embedded');
const SERVER_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
/** Users in the table while sign-in and requests are measured ("a few thousand"). */
const WARM_USERS = 5_000;
/** Users added before the admin lists are measured. */
const USERS = EMBEDDED ? 30_000 : 300_000;
const SECONDS = 5;
const WARMUP_SECONDS = 2;

const ADMIN_EMAIL = 'admin@bench.example.com';
const USER_EMAIL = 'user@bench.example.com';

interface Figure {
  scenario: string;
  connections: number;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
  non_2xx: number;
  errors: number;
  /** The service's peak resident memory so far, after this scenario. */
  peak_rss_mb?: number;
  /** The service's CPU time (user + system) per request while it was measured, in microseconds. */
  cpu_us_per_request?: number;
}

/** The round whose requests per second are the median of the rounds' (the row the table shows). */
function medianRound(rounds: Figure[]): Figure {
  return [...rounds].sort((a, b) => a.requests_per_second - b.requests_per_second)[Math.floor((rounds.length - 1) / 2)];
}

function figure(scenario: string, connections: number, result: autocannon.Result): Figure {
  return {
    scenario,
    connections,
    requests_per_second: round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    mean_ms: round(result.latency.mean, 2),
    non_2xx: result.non2xx,
    errors: result.errors,
  };
}

function serviceEnv(extra: Record<string, string>): Record<string, string> {
  return {
    // development: the fixed second-factor code 123456, so the two-factor flow can be driven.
    APP_ENV: 'development',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    // The benchmark is one client address and a few accounts; the limits would measure themselves.
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_GLOBAL_PER_MINUTE: '100000000',
    OTP_HOURLY_CAP: '100000000',
    INTROSPECT_RATE_PER_MINUTE: '100000000',
    TOKEN_RATE_PER_MINUTE: '100000000',
    AUTH_MOBILE_OTP: 'true',
    SEED_ADMIN_EMAIL: ADMIN_EMAIL,
    SEED_ADMIN_PASSWORD: `Bench-${randomBytes(12).toString('hex')}`,
    SEED_ADMIN_MOBILE: '+4917600000001',
    SEED_USER_EMAIL: USER_EMAIL,
    SEED_USER_PASSWORD: `Bench-${randomBytes(12).toString('hex')}`,
    SERVICE_CLIENTS: `bench:${randomBytes(24).toString('base64url')}`,
    ...extra,
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  // How busy the machine was: figures of a loaded machine are for ratios only.
  const loadAtStart = loadavg().map((value) => round(value, 2));
  console.log(`Load average at start: ${loadAtStart.join(', ')} (${availableParallelism()} cores)`);
  const database = EMBEDDED ? undefined : await createDatabase(SERVER_URL);
  const dataDir = EMBEDDED ? await mkdtemp(path.join(tmpdir(), 'auth-bench-')) : undefined;
  let service: ServiceProcess | undefined;
  try {
    const where: Record<string, string> = database
      ? {
          DATABASE_URL: database.url,
          ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : { SINGLE_INSTANCE: 'true' }),
        }
      : { DATA_DIR: dataDir! };
    const env = serviceEnv(where);
    service = await startService('dist/bench/bench-app.js', env);
    const base = service.base;
    const readyPeakRss = service.peakRssMb();
    await bulkUsers(base, 'warm', WARM_USERS);
    console.log(
      `Service ready with ${WARM_USERS.toLocaleString('en')} users in ${((Date.now() - started) / 1000).toFixed(1)} s (${EMBEDDED ? 'embedded database' : 'PostgreSQL'}${where.REDIS_URL ? ' + Redis' : ''})`,
    );
    const user = await signIn(base, USER_EMAIL, env.SEED_USER_PASSWORD);
    const bearer = { authorization: `Bearer ${user.access_token}` };
    const load = (connections: number): Load => ({ connections, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
    const loginBody = JSON.stringify({ email: USER_EMAIL, password: env.SEED_USER_PASSWORD });
    const json = { 'content-type': 'application/json' };

    /** Where the service's memory is now (bench-only route), printed and kept in the result. */
    const memoryAt: Record<string, unknown> = {};
    const noteMemory = async (stage: string) => {
      const body = (await (await fetch(`${base}/api/bench/memory`)).json()) as { data: Record<string, unknown> };
      memoryAt[stage] = { ...body.data, peak_rss: service!.peakRssMb() };
      console.log(`  memory ${stage}: ${JSON.stringify(memoryAt[stage])}`);
    };
    await noteMemory('at ready');
    const figures: Figure[] = [];
    /** Measures one scenario (each round after the first with a shorter warm-up). */
    const run = async (name: string, connections: number, options: autocannon.Options, roundNo = 0) => {
      const warmup = roundNo === 0 ? WARMUP_SECONDS : 1;
      const cpuBefore = { value: 0 };
      const measured = await measure(options, { ...load(connections), warmupSeconds: warmup }, () => {
        cpuBefore.value = cpuMicros(service!.child.pid!);
      });
      const result = figure(name, connections, measured);
      result.cpu_us_per_request = round(
        (cpuMicros(service!.child.pid!) - cpuBefore.value) / measured.requests.total,
        0,
      );
      result.peak_rss_mb = service!.peakRssMb();
      console.log(
        `  ${name} @${connections} (round ${roundNo + 1}): ` +
          `${result.requests_per_second} req/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, ` +
          `${result.cpu_us_per_request} µs CPU a request, peak RSS ${result.peak_rss_mb} MB`,
      );
      return result;
    };
    /** Rounds of scenarios run one after the other, the rows of the table being each scenario's median round. */
    const interleaved = async (scenarios: ((roundNo: number) => Promise<Figure>)[]) => {
      const rounds = scenarios.map(() => [] as Figure[]);
      for (let roundNo = 0; roundNo < ROUNDS; roundNo++)
        for (const [index, measureOne] of scenarios.entries()) rounds[index].push(await measureOne(roundNo));
      for (const scenarioRounds of rounds) figures.push(medianRound(scenarioRounds));
      return rounds;
    };
    // A first pass over the three routes, unmeasured: the process has just started and loaded
    // users, and whichever route came first would pay for the JIT and the database settling.
    for (const url of ['/api/bench/bare', '/api/bench/signature-only', '/api/auth/me']) {
      await measure({ url: base + url, headers: bearer }, { connections: 10, seconds: 2, warmupSeconds: 0 });
    }
    const [bare, jwtOnly, guarded] = await interleaved([
      (roundNo) => run('baseline A: bare route', 10, { url: `${base}/api/bench/bare` }, roundNo),
      (roundNo) =>
        run(
          'baseline B: signature-only guard',
          10,
          { url: `${base}/api/bench/signature-only`, headers: bearer },
          roundNo,
        ),
      (roundNo) => run('guarded: GET /api/auth/me', 10, { url: `${base}/api/auth/me`, headers: bearer }, roundNo),
    ]);
    await noteMemory('after the guarded routes');
    // Baseline C hashes outside the service's own limit (ARGON2_CONCURRENCY), with 19 MiB each:
    // its memory is the baseline's, not the service's peak.
    const verify = (connections: number, roundNo: number) =>
      service!.outsideThePeak(() =>
        run('baseline C: Argon2id verify', connections, { url: `${base}/api/bench/argon2-verify` }, roundNo),
      );
    const login = (connections: number, roundNo: number) =>
      run(
        'login (email + password)',
        connections,
        { url: `${base}/api/auth/login`, method: 'POST', headers: json, body: loginBody },
        roundNo,
      );
    const [verify1, login1] = await interleaved([(r) => verify(1, r), (r) => login(1, r)]);
    const [verify4, login4] = await interleaved([(r) => verify(4, r), (r) => login(4, r)]);
    await noteMemory('after sign-in');
    const ratios = {
      guardedVsBare: medianOf(guarded.map((g, r) => g.requests_per_second / bare[r].requests_per_second)),
      guardedVsJwtOnly: medianOf(guarded.map((g, r) => g.requests_per_second / jwtOnly[r].requests_per_second)),
      loginMinusVerify: medianOf(
        login1.map((l, r) => l.p50_ms - verify1[r].p50_ms),
        1,
      ),
      loginVsVerify: medianOf(login4.map((l, r) => l.requests_per_second / verify4[r].requests_per_second)),
    };

    // Every refresh token is used once: a request takes a free one, its response gives the next
    // back (autocannon clears a connection's context between requests, so the pool is shared).
    const refreshTokens: string[] = [];
    for (let i = 0; i < 24; i += 1)
      refreshTokens.push((await signIn(base, USER_EMAIL, env.SEED_USER_PASSWORD)).refresh_token);
    const once = async (...args: Parameters<typeof run>) => {
      const result = await run(...args);
      figures.push(result);
      return result;
    };
    const refresh = await once('refresh rotation', 10, {
      url: base,
      requests: [
        {
          method: 'POST',
          path: '/api/auth/refresh',
          headers: json,
          setupRequest: (request) => ({ ...request, body: JSON.stringify({ refresh_token: refreshTokens.shift() }) }),
          onResponse: (status, body) => {
            if (status === 200) refreshTokens.push(JSON.parse(body).data.refresh_token);
          },
        },
      ],
    });

    const [clientId, clientSecret] = env.SERVICE_CLIENTS.split(':');
    const introspectHeaders = {
      ...json,
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    };
    const probe = await postJson(base, '/api/auth/introspect', { token: user.access_token }, introspectHeaders);
    const introspect =
      probe.status === 404
        ? undefined
        : await once('introspection, warm token', 10, {
            url: `${base}/api/auth/introspect`,
            method: 'POST',
            headers: introspectHeaders,
            body: JSON.stringify({ token: user.access_token }),
          });

    // The OpenID provider. A browser that signed in once through the pages asks for a code and the
    // client exchanges it, one round trip after the other, in rounds interleaved with the password
    // sign-in measured the same way (one request after the other, fetch); the ratio is their median.
    const providerAdmin = await signIn(base, ADMIN_EMAIL, env.SEED_ADMIN_PASSWORD);
    const roundTrip = await codeRoundTrip(base, providerAdmin.access_token, USER_EMAIL, env.SEED_USER_PASSWORD);
    const codeRounds: Awaited<ReturnType<typeof timedLoop>>[] = [];
    const passwordRounds: Awaited<ReturnType<typeof timedLoop>>[] = [];
    for (let roundNo = 0; roundNo < ROUNDS; roundNo++) {
      codeRounds.push(await timedLoop(SECONDS, roundTrip));
      passwordRounds.push(
        await timedLoop(SECONDS, async () => {
          await signIn(base, USER_EMAIL, env.SEED_USER_PASSWORD);
        }),
      );
      console.log(
        `  authorization code round trip @1 (round ${roundNo + 1}): ${codeRounds[roundNo].per_second}/s, ` +
          `p50 ${codeRounds[roundNo].p50_ms} ms; password sign-in @1: ${passwordRounds[roundNo].per_second}/s`,
      );
    }
    const codeVsPassword = medianOf(codeRounds.map((c, r) => c.per_second / passwordRounds[r].per_second));
    const authorizationCode = [...codeRounds].sort((x, y) => x.per_second - y.per_second)[Math.floor((ROUNDS - 1) / 2)];
    // The token endpoint's client_credentials grant (the bench's SERVICE_CLIENTS client), against
    // the bare route in interleaved rounds.
    const tokenHeaders = {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: introspectHeaders.authorization,
    };
    const [bareBesideTokens, clientCredentials] = await interleaved([
      (roundNo) =>
        run('baseline A: bare route (beside the token endpoint)', 10, { url: `${base}/api/bench/bare` }, roundNo),
      (roundNo) =>
        run(
          'token endpoint: client_credentials',
          10,
          {
            url: `${base}/api/auth/token`,
            method: 'POST',
            headers: tokenHeaders,
            body: 'grant_type=client_credentials',
          },
          roundNo,
        ),
    ]);
    const clientCredentialsVsBare = medianOf(
      clientCredentials.map((c, r) => c.requests_per_second / bareBesideTokens[r].requests_per_second),
    );

    const twoFactor = await timedLoop(SECONDS, async () => {
      await signIn(base, ADMIN_EMAIL, env.SEED_ADMIN_PASSWORD);
    });
    console.log(
      `  second-factor sign-in, end to end @1: ${twoFactor.per_second}/s, p50 ${twoFactor.p50_ms} ms, p99 ${twoFactor.p99_ms} ms`,
    );

    console.log('Consumer side (a Nest 12 application on the packed guard package):');
    const consumer = await measureConsumer({ base, env, adminEmail: ADMIN_EMAIL });
    console.log(
      `  guarded/unguarded ${consumer.guarded_vs_unguarded_median} (spread ${consumer.guarded_vs_unguarded_spread.join('–')}), ` +
        `guarded/open /health ${consumer.guarded_vs_open_median} (spread ${consumer.guarded_vs_open_spread.join('–')}), ` +
        `${consumer.introspections_per_1000_guarded} introspections per 1,000 guarded requests, ` +
        `logout → 401: events p50 ${consumer.logout_to_401_events_ms.p50} ms / p99 ${consumer.logout_to_401_events_ms.p99} ms ` +
        `(${consumer.logout_to_401_events_ms.missed} missed), ` +
        `introspection p50 ${consumer.logout_to_401_introspection_ms.p50} ms / p99 ${consumer.logout_to_401_introspection_ms.p99} ms ` +
        `(${consumer.logout_to_401_introspection_ms.missed} missed)`,
    );

    console.log('Organizations (organization tokens, and a consumer route under one):');
    const organizations = await measureOrganizations({ base, env, adminEmail: ADMIN_EMAIL });
    console.log(
      `  organization tokens ${organizations.organization_token_requests_per_second} req/s ` +
        `(/ auth/me ${organizations.organization_token_vs_me_median}, spread ${organizations.organization_token_vs_me_spread.join('–')}), ` +
        `consumer organization / ordinary token ${organizations.consumer_organization_vs_ordinary_median} ` +
        `(spread ${organizations.consumer_organization_vs_ordinary_spread.join('–')})`,
    );

    const loaded = Date.now();
    await noteMemory('after the consumer side');
    await bulkUsers(base, 'bench', USERS);
    console.log(`Inserted ${USERS.toLocaleString('en')} more users in ${((Date.now() - loaded) / 1000).toFixed(1)} s`);
    await noteMemory(`after inserting ${USERS.toLocaleString('en')} users`);
    const admin = await signIn(base, ADMIN_EMAIL, env.SEED_ADMIN_PASSWORD);
    const adminLists = await measureAdminLists(base, admin.access_token, USERS, {
      connections: 4,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
    });
    await noteMemory('after the admin lists');
    const servicePeakRss = service.peakRssMb();
    console.log(`  admin lists: peak RSS ${servicePeakRss} MB`);
    await service.stop();
    service = undefined;

    const embedded = await embeddedMemory();
    const summary = {
      guarded_vs_bare: ratios.guardedVsBare.median,
      guarded_vs_bare_spread: ratios.guardedVsBare.spread,
      guarded_vs_jwt_only: ratios.guardedVsJwtOnly.median,
      guarded_vs_jwt_only_spread: ratios.guardedVsJwtOnly.spread,
      login_p50_minus_verify_p50_ms: ratios.loginMinusVerify.median,
      login_p50_minus_verify_p50_ms_spread: ratios.loginMinusVerify.spread,
      login_rps_vs_verify_rps: ratios.loginVsVerify.median,
      login_rps_vs_verify_rps_spread: ratios.loginVsVerify.spread,
      consumer_guarded_vs_unguarded: consumer.guarded_vs_unguarded_median,
      consumer_guarded_vs_unguarded_spread: consumer.guarded_vs_unguarded_spread,
      consumer_guarded_vs_open: consumer.guarded_vs_open_median,
      consumer_guarded_vs_open_spread: consumer.guarded_vs_open_spread,
      organization_token_rps: organizations.organization_token_requests_per_second,
      organization_token_vs_me: organizations.organization_token_vs_me_median,
      organization_token_vs_me_spread: organizations.organization_token_vs_me_spread,
      consumer_organization_vs_ordinary: organizations.consumer_organization_vs_ordinary_median,
      consumer_organization_vs_ordinary_spread: organizations.consumer_organization_vs_ordinary_spread,
      refresh_rps: refresh.requests_per_second,
      introspection_rps: introspect?.requests_per_second ?? null,
      two_factor_sign_ins_per_second: twoFactor.per_second,
      authorization_code_round_trips_per_second: authorizationCode.per_second,
      code_round_trip_vs_password_sign_in: codeVsPassword.median,
      code_round_trip_vs_password_sign_in_spread: codeVsPassword.spread,
      client_credentials_rps: medianRound(clientCredentials).requests_per_second,
      client_credentials_vs_bare: clientCredentialsVsBare.median,
      client_credentials_vs_bare_spread: clientCredentialsVsBare.spread,
      peak_rss_mb: servicePeakRss,
      embedded_peak_rss_mb: embedded.first_start_peak_rss_mb,
      embedded_restart_peak_rss_mb: embedded.restart_peak_rss_mb,
    };
    printTable(figures, twoFactor, adminLists, summary, servicePeakRss);
    console.log(`Service peak RSS: ${readyPeakRss} MB at ready, ${servicePeakRss} MB after the load`);

    const resultsDir = path.join(ROOT, 'bench', 'results');
    await mkdir(resultsDir, { recursive: true });
    const report = {
      date: new Date().toISOString(),
      machine: `${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}`,
      node: process.version,
      database: EMBEDDED ? 'embedded' : where.REDIS_URL ? 'postgresql+redis' : 'postgresql',
      users: USERS,
      seconds_per_scenario: SECONDS,
      rounds: ROUNDS,
      load_average_at_start: loadAtStart,
      figures,
      two_factor_sign_in: twoFactor,
      authorization_code_round_trip: authorizationCode,
      admin_lists: adminLists,
      consumer,
      organizations,
      memory: {
        service_ready_peak_rss_mb: readyPeakRss,
        service_peak_rss_mb: servicePeakRss,
        embedded,
        stages: memoryAt,
      },
      summary,
      duration_seconds: round((Date.now() - started) / 1000, 0),
    };
    const dated = `${report.date.slice(0, 10)}-${report.database}.json`;
    for (const file of ['latest.json', dated]) {
      await writeFile(path.join(resultsDir, file), `${JSON.stringify(report, null, 2)}\n`);
    }
    console.log(`Written to bench/results/latest.json and ${dated} (${report.duration_seconds} s in all)`);
    const failed = [...figures, ...adminLists].filter((f) => f.non_2xx > 0 || f.errors > 0);
    if (failed.length > 0) {
      console.error(`Some requests failed: ${failed.map((f) => f.scenario).join(', ')}`);
      process.exitCode = 1;
    }
  } finally {
    await service?.stop();
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

async function bulkUsers(base: string, prefix: string, count: number): Promise<void> {
  const res = await fetch(`${base}/api/bench/users/${prefix}/${count}`, { method: 'POST' });
  if (!res.ok) throw new Error(`Loading ${count} users failed with ${res.status}`);
}

/** The service itself (`dist/src/main.js`) on a new embedded data folder, then restarted on it. */
async function embeddedMemory(): Promise<{
  first_start_peak_rss_mb: number;
  first_start_seconds: number;
  restart_peak_rss_mb: number;
  restart_seconds: number;
}> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'auth-bench-embedded-'));
  try {
    const env = serviceEnv({ DATA_DIR: dataDir });
    const startOnce = async () => {
      const t0 = Date.now();
      const service = await startService('dist/src/main.js', env, 180_000);
      const seconds = round((Date.now() - t0) / 1000, 1);
      // One sign-in and a few requests, so the figure is of a service that has served something.
      const user = await signIn(service.base, USER_EMAIL, env.SEED_USER_PASSWORD);
      for (let i = 0; i < 20; i += 1)
        await fetch(`${service.base}/api/auth/me`, { headers: { authorization: `Bearer ${user.access_token}` } });
      const peak = service.peakRssMb();
      await service.stop();
      return { peak, seconds };
    };
    const first = await startOnce();
    const restart = await startOnce();
    console.log(
      `  embedded database: first start ${first.peak} MB peak (${first.seconds} s), restart ${restart.peak} MB peak (${restart.seconds} s)`,
    );
    return {
      first_start_peak_rss_mb: first.peak,
      first_start_seconds: first.seconds,
      restart_peak_rss_mb: restart.peak,
      restart_seconds: restart.seconds,
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

function printTable(
  figures: Figure[],
  twoFactor: { per_second: number; p50_ms: number; p99_ms: number },
  adminLists: AdminListFigures[],
  summary: Record<string, number | [number, number] | null>,
  peakRss: number,
): void {
  console.table([
    ...figures.map((f) => ({
      scenario: f.scenario,
      conn: f.connections,
      'req/s': f.requests_per_second,
      'p50 ms': f.p50_ms,
      'p99 ms': f.p99_ms,
      'CPU µs/req': f.cpu_us_per_request,
      'non-2xx': f.non_2xx,
      'peak MB': f.peak_rss_mb,
    })),
    {
      scenario: 'second-factor sign-in, end to end',
      conn: 1,
      'req/s': twoFactor.per_second,
      'p50 ms': twoFactor.p50_ms,
      'p99 ms': twoFactor.p99_ms,
      'non-2xx': 0,
    },
    ...adminLists.map((f) => ({
      scenario: `admin list: ${f.scenario}`,
      conn: 4,
      'req/s': f.requests_per_second,
      'p50 ms': f.p50_ms,
      'p99 ms': f.p99_ms,
      'non-2xx': f.non_2xx,
    })),
  ]);
  // Each ratio is the median of ROUNDS interleaved rounds; the spread is their lowest and highest.
  const withSpread = (key: string) => ({
    value: summary[key],
    spread: (summary[`${key}_spread`] as [number, number] | undefined)?.join('–') ?? '',
  });
  console.table({
    'guarded / baseline A (req/s)': { ...withSpread('guarded_vs_bare'), target: '>= 0.35' },
    'guarded / baseline B (req/s)': { ...withSpread('guarded_vs_jwt_only'), target: '>= 0.80' },
    'login p50 - verify p50 @1 (ms)': { ...withSpread('login_p50_minus_verify_p50_ms'), target: '<= 3' },
    'login / verify req/s @4': { ...withSpread('login_rps_vs_verify_rps'), target: '>= 0.80' },
    'consumer guarded / same route unguarded (req/s)': {
      ...withSpread('consumer_guarded_vs_unguarded'),
      target: '>= 0.80',
    },
    'consumer guarded / open GET /health (req/s)': { ...withSpread('consumer_guarded_vs_open'), target: '' },
    'consumer organization token / ordinary token (req/s)': {
      ...withSpread('consumer_organization_vs_ordinary'),
      target: '>= 0.95',
    },
    'organization tokens req/s': { value: summary.organization_token_rps, target: '' },
    'organization token / auth/me (req/s)': { ...withSpread('organization_token_vs_me'), target: '' },
    'refresh req/s': { value: summary.refresh_rps, target: '>= 1000 (PostgreSQL)' },
    'authorization code round trips / password sign-ins @1': {
      ...withSpread('code_round_trip_vs_password_sign_in'),
      target: '',
    },
    'client_credentials / baseline A (req/s)': { ...withSpread('client_credentials_vs_bare'), target: '' },
    'service peak RSS (MB)': { value: peakRss, target: '<= 200 (PostgreSQL)' },
    'embedded first start peak RSS (MB)': { value: summary.embedded_peak_rss_mb, target: '<= 300' },
    'embedded restart peak RSS (MB)': { value: summary.embedded_restart_peak_rss_mb, target: '' },
  });
}

main().catch((error: unknown) => {
  console.error('Benchmark failed:', error);
  process.exit(1);
});
