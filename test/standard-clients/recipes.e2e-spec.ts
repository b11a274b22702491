import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { registerUser } from '../support/auth-factory.js';
import { createTestApp } from '../support/test-app.js';
import { lockFolder } from '../consumer/consumer-support.js';
import { freePort } from '../support/free-port.js';

const DOC = path.resolve(import.meta.dirname, '../../docs/standard-clients.md');

interface Recipe {
  /** The sh blocks in order: the install block first, the start block last. */
  commands: string[];
  /** The blocks that open with a `// path` line: the files to write, by that path. */
  files: Record<string, string>;
}

/** A recipe of docs/standard-clients.md as a reader copies it: its blocks, unchanged. */
function recipe(title: string): Recipe {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(`\n## ${title}`);
  if (start < 0) throw new Error(`docs/standard-clients.md has no "## ${title}"`);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const result: Recipe = { commands: [], files: {} };
  for (const [, language, body] of section.matchAll(/```(\w+)\n([\s\S]*?)```/g)) {
    if (language === 'sh') result.commands.push(body);
    else {
      const named = /^\/\/ (\S+)\n/.exec(body);
      if (named) result.files[named[1]] = body;
    }
  }
  return result;
}

/** Runs a block of shell lines with bash, stopping at the first failure. */
function bash(script: string, cwd: string, env: Record<string, string>, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', script], { cwd, env: { ...process.env, NO_COLOR: '1', ...env } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${script} failed (${code}):\n${output}`));
    });
  });
}

/**
 * The recipe's install block run once, in a folder outside the repository named by the block's
 * digest, under the consumers' lock folder (a second worker waits instead of installing beside it).
 * Answers the folder the block ran in.
 */
async function installed(name: string, install: string): Promise<string> {
  const digest = createHash('sha256').update(install).digest('hex').slice(0, 16);
  const folder = path.join(os.tmpdir(), `recipe-${name}-${digest}`);
  const done = () => existsSync(path.join(folder, '.installed'));
  const release = await lockFolder(`${folder}.lock`, done);
  if (!release) return folder;
  try {
    const building = `${folder}.${process.pid}`;
    await rm(building, { recursive: true, force: true });
    await mkdir(building, { recursive: true });
    // As written, `npm install` lines included; a slow registry may take minutes.
    await bash(install, building, {}, 600_000);
    await writeFile(path.join(building, '.installed'), '');
    await rm(folder, { recursive: true, force: true });
    await rename(building, folder);
  } finally {
    await release();
  }
  return folder;
}

async function writeFiles(folder: string, files: Record<string, string>): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(folder, file)), { recursive: true });
    await writeFile(path.join(folder, file), content);
  }
}

const CLIENT = { id: 'reports', secret: 'reports-secret-0123456789-abcdefghij' };

describe('Recipe 1 of docs/standard-clients.md (a Nest service on passport-jwt + jwks-rsa), as written', () => {
  let auth: NestFastifyApplication;
  let issuer: string;
  let consumer: ChildProcess | undefined;
  let output = '';
  let baseUrl: string;

  beforeAll(async () => {
    const { commands, files } = recipe('Recipe 1');
    expect(commands).toHaveLength(2);
    expect(Object.keys(files).sort()).toEqual(['src/app.module.ts', 'src/main.ts', 'tsconfig.json']);
    // The block's `mkdir reports && cd reports`: the project is in its reports folder.
    const project = path.join(await installed('passport-jwt', commands[0]!), 'reports');
    await writeFiles(project, files);
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    auth = await createTestApp({ env: { ISSUER: issuer, JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: key } });
    await auth.listen(port, '127.0.0.1');
    const consumerPort = await freePort();
    // The start block, as written, in its own process group so that its node goes with it.
    consumer = spawn('bash', ['-e', '-c', commands[1]!], {
      cwd: project,
      env: { ...process.env, AUTH_URL: issuer, AUTH_ISSUER: issuer, PORT: String(consumerPort) },
      detached: true,
    });
    consumer.stdout!.on('data', (chunk) => (output += chunk));
    consumer.stderr!.on('data', (chunk) => (output += chunk));
    const deadline = Date.now() + 180_000;
    while (!/Listening on \S+/.test(output)) {
      if (consumer.exitCode !== null || Date.now() > deadline) throw new Error(`the recipe did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    baseUrl = `http://127.0.0.1:${consumerPort}`;
  }, 900_000);

  afterAll(async () => {
    if (consumer?.pid && consumer.exitCode === null) {
      const exited = new Promise((resolve) => consumer!.once('exit', resolve));
      process.kill(-consumer.pid, 'SIGTERM');
      await exited;
    }
    await auth?.close();
  });

  const reports = (token?: string) =>
    fetch(`${baseUrl}/reports`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('answers an access token with its subject, and refuses a refresh token and no token (401)', async () => {
    const user = await registerUser(auth);
    const accepted = await reports(user.tokens.access_token);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ viewer: user.id });
    expect((await reports(user.tokens.refresh_token)).status).toBe(401);
    expect((await reports()).status).toBe(401);
  });
});

describe('Recipe 3 of docs/standard-clients.md (openid-client), as written, against an http issuer', () => {
  let auth: NestFastifyApplication;

  afterAll(async () => {
    await auth?.close();
  });

  it('discovers, gets a client-credentials token, introspects it and revokes it', async () => {
    const { commands, files } = recipe('Recipe 3');
    expect(commands).toHaveLength(2);
    expect(Object.keys(files)).toEqual(['reports.mjs']);
    const project = await installed('openid-client', commands[0]!);
    await writeFiles(project, files);
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    auth = await createTestApp({ env: { ISSUER: issuer, SERVICE_CLIENTS: `${CLIENT.id}:${CLIENT.secret}` } });
    await auth.listen(port, '127.0.0.1');
    const printed = await bash(commands[1]!, project, { AUTH_ISSUER: issuer, CLIENT_SECRET: CLIENT.secret }, 60_000);
    expect(JSON.parse(printed.trim().split('\n').at(-1)!)).toEqual({ active: true, sub: CLIENT.id });
  }, 900_000);
});
