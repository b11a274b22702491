/**
 * `npm run bench:side-by-side`: who-am-I beside better-auth's get-session, on the same machine,
 * the same PostgreSQL server and the same Node, in one run. A manual run, not part of
 * `npm run bench`: it installs better-auth (BETTER_AUTH_VERSION, default 1.7.25) and pg from the
 * npm registry into a folder under the system's temporary directory, outside the repository,
 * once per version, and never into the project.
 *
 * - This service: the real build (`dist/src/main.js`, with `npm run start:prod`'s Node options),
 *   `GET /api/auth/me` with a Bearer token, SINGLE_INSTANCE=true.
 * - better-auth: its own defaults with email and password on, rate limit off (as this service's
 *   limits are raised out of the way), behind `toNodeHandler` on node:http, `GET
 *   /api/auth/get-session` with its session cookie.
 * - 10 connections, 5 s each after a warm-up, three rounds interleaved (ours, theirs, ours...);
 *   prints each round, the median ratio with its spread, and each process's peak RSS.
 *
 * DATABASE_URL names the PostgreSQL server; two databases are made and dropped.
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createDatabase, freePort, medianOf, ROUNDS, round, signIn, sleep, startService } from './support.js';

const VERSION = process.env.BETTER_AUTH_VERSION ?? '1.7.25';
const SERVER_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = 5;

/** better-auth's server: its defaults, email and password on, its tables made by its own migrations. */
const BETTER_AUTH_SERVER = `
import { createServer } from 'node:http';
import pg from 'pg';
import { betterAuth } from 'better-auth';
import { toNodeHandler } from 'better-auth/node';
import { getMigrations } from 'better-auth/db/migration';

const baseURL = 'http://127.0.0.1:' + process.env.PORT;
const auth = betterAuth({
  database: new pg.Pool({ connectionString: process.env.DATABASE_URL }),
  secret: process.env.BETTER_AUTH_SECRET,
  baseURL,
  trustedOrigins: [baseURL],
  emailAndPassword: { enabled: true },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
});
const { runMigrations } = await getMigrations(auth.options);
await runMigrations();
createServer(toNodeHandler(auth)).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));
`;

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: 'inherit' });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')}: ${code}`))));
  });
}

/** better-auth installed once per version outside the repository. */
async function installBetterAuth(): Promise<string> {
  const folder = path.join(tmpdir(), `better-auth-side-by-side-${VERSION}`);
  if (!existsSync(path.join(folder, 'node_modules/better-auth/package.json'))) {
    await mkdir(folder, { recursive: true });
    await writeFile(
      path.join(folder, 'package.json'),
      JSON.stringify({ name: 'better-auth-side-by-side', private: true, type: 'module' }, null, 2),
    );
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', `better-auth@${VERSION}`, 'pg@8'],
      folder,
    );
  }
  await writeFile(path.join(folder, 'server.mjs'), BETTER_AUTH_SERVER);
  return folder;
}

function peakRssMb(pid: number): number {
  return round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024, 0);
}

async function startBetterAuth(folder: string, databaseUrl: string): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(folder, 'server.mjs')], {
    cwd: folder,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      BETTER_AUTH_SECRET: randomBytes(32).toString('base64url'),
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`better-auth exited with ${code}`)));
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

/** A new better-auth account, signed in: its session cookie. */
async function betterAuthSession(base: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({
      email: `side-${randomUUID()}@bench.example.com`,
      password: `Side-By-Side-${randomUUID()}`,
      name: 'Side',
    }),
  });
  if (!response.ok) throw new Error(`better-auth sign-up answered ${response.status}: ${await response.text()}`);
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(';')[0])
    .find((pair) => pair.includes('session_token'));
  if (!cookie) throw new Error('better-auth set no session cookie');
  const session = await fetch(`${base}/api/auth/get-session`, { headers: { cookie } });
  const body = (await session.json()) as { session?: unknown } | null;
  if (!session.ok || !body?.session) throw new Error('better-auth get-session did not answer the session');
  return cookie;
}

async function main(): Promise<void> {
  console.log(
    `Load average at start: ${loadavg()
      .map((value) => round(value, 2))
      .join(', ')}`,
  );
  const folder = await installBetterAuth();
  const ours = await createDatabase(SERVER_URL);
  const theirs = await createDatabase(SERVER_URL);
  const password = `Side-${randomBytes(12).toString('hex')}`;
  const service = await startService('dist/src/main.js', {
    APP_ENV: 'development',
    DATABASE_URL: ours.url,
    SINGLE_INSTANCE: 'true',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_GLOBAL_PER_MINUTE: '100000000',
    SEED_ADMIN_EMAIL: 'admin@side.example.com',
    SEED_ADMIN_PASSWORD: `Side-${randomBytes(12).toString('hex')}`,
    SEED_USER_EMAIL: 'user@side.example.com',
    SEED_USER_PASSWORD: password,
  });
  const betterAuth = await startBetterAuth(folder, theirs.url);
  try {
    const token = (await signIn(service.base, 'user@side.example.com', password)).access_token;
    const cookie = await betterAuthSession(betterAuth.base);
    const me = { url: `${service.base}/api/auth/me`, headers: { authorization: `Bearer ${token}` } };
    const getSession = { url: `${betterAuth.base}/api/auth/get-session`, headers: { cookie } };
    for (const options of [me, getSession]) await autocannon({ ...options, connections: 10, duration: 3 });
    const ratios: number[] = [];
    for (let roundNo = 0; roundNo < ROUNDS; roundNo++) {
      const ourRound = await autocannon({ ...me, connections: 10, duration: SECONDS });
      await sleep(300);
      const theirRound = await autocannon({ ...getSession, connections: 10, duration: SECONDS });
      await sleep(300);
      if (ourRound.non2xx + theirRound.non2xx > 0) throw new Error('some requests failed');
      ratios.push(ourRound.requests.average / theirRound.requests.average);
      console.log(
        `  round ${roundNo + 1}: GET /api/auth/me ${round(ourRound.requests.average)} req/s (p50 ${ourRound.latency.p50} ms), ` +
          `better-auth ${VERSION} get-session ${round(theirRound.requests.average)} req/s (p50 ${theirRound.latency.p50} ms)`,
      );
    }
    const ratio = medianOf(ratios, 2);
    console.log(
      `who-am-I / better-auth get-session: ${ratio.median}× (spread ${ratio.spread.join('–')}); ` +
        `peak RSS ${service.peakRssMb()} MB against ${peakRssMb(betterAuth.child.pid!)} MB`,
    );
  } finally {
    betterAuth.child.kill('SIGTERM');
    await service.stop();
    await sleep(500);
    await ours.drop();
    await theirs.drop();
  }
}

main().catch((error: unknown) => {
  console.error('Side-by-side failed:', error);
  process.exit(1);
});
