import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { execFile } from 'node:child_process';
import { generateKeyPairSync, createHmac } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { IntrospectionService } from '../../src/introspection/introspection.service.js';
import { callerWithRoles, type Caller, roleWithPermissions } from '../support/rbac-factory.js';
import { logout, sleep } from '../support/auth-factory.js';
import { resetTokenFrom, SmtpSink } from '../support/smtp-sink.js';
import { createTestApp } from '../support/test-app.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';
import { installConsumer, ROOT, startConsumer, type RunningConsumer } from './consumer-support.js';
import { EventsProxy } from './events-proxy.js';

const CLIENT = { id: 'reports-service', secret: 'reports-service-secret-0123456789-abcdef' };
const APP_URL = 'http://auth.example.test';
const SERVICE_UNAVAILABLE = {
  success: false,
  error: { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable. Try again shortly.' },
};
const es256Key = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

interface Auth {
  app: NestFastifyApplication;
  url: string;
  db: DataSource;
  smtp: SmtpSink;
  /** Introspection calls the service has answered so far. */
  introspections: () => number;
}

async function startAuth(env: Record<string, string>): Promise<Auth> {
  const smtp = await SmtpSink.start();
  const app = await createTestApp({
    env: {
      SERVICE_CLIENTS: `${CLIENT.id}:${CLIENT.secret}`,
      SMTP_URL: smtp.url,
      APP_URL,
      OTP_RESEND_SECONDS: '0',
      ...env,
    },
  });
  await app.listen(0, '127.0.0.1');
  // Every introspection a consumer makes, counted where the service answers it.
  const introspection = app.get(IntrospectionService);
  const answer = introspection.introspect.bind(introspection);
  let count = 0;
  introspection.introspect = (token: string) => (count++, answer(token));
  return {
    app,
    smtp,
    url: (await app.getUrl()).replace('[::1]', '127.0.0.1'),
    db: app.get(DataSource),
    introspections: () => count,
  };
}

async function stopAuth(auth: Auth | undefined): Promise<void> {
  await auth?.app.close();
  await auth?.smtp.stop();
}

const status = (consumer: RunningConsumer, token: string) =>
  fetch(`${consumer.baseUrl}/reports`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => {
    await res.arrayBuffer();
    return res.status;
  });

async function authHealth(consumer: RunningConsumer): Promise<{ fresh: boolean; stream: { state: string } }> {
  return ((await (await fetch(`${consumer.baseUrl}/health/auth`)).json()) as { data: never }).data;
}

/** Waits (polling every few ms) until the condition holds; returns how long it took. */
async function within(ms: number, condition: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await condition()) return performance.now() - started;
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await sleep(5);
  }
}

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.99) - 1];

describe.each([
  { nestMajor: 12 as const, algorithm: 'ES256' },
  { nestMajor: 11 as const, algorithm: 'HS256' },
])(
  'revocation by events in a packed Nest $nestMajor consumer (auth service on $algorithm)',
  ({ nestMajor, algorithm }) => {
    const TRIALS = 20;
    let folder: string;
    let auth: Auth;
    let consumer: RunningConsumer;
    let admin: Caller;
    let viewerRole: { id: string; name: string };

    beforeAll(async () => {
      folder = await installConsumer(nestMajor);
      auth = await startAuth(algorithm === 'HS256' ? {} : { JWT_ALGORITHM: algorithm, JWT_PRIVATE_KEY: es256Key() });
      consumer = await startConsumer(folder, {
        AUTH_URL: auth.url,
        AUTH_CLIENT_ID: CLIENT.id,
        AUTH_CLIENT_SECRET: CLIENT.secret,
        // Under HS256 the events are HMAC-signed: the consumer verifies them (and tokens) with the secret.
        ...(algorithm === 'HS256' ? { AUTH_JWT_SECRET: TEST_JWT_SECRET } : {}),
      });
      await within(10_000, async () => (await authHealth(consumer)).fresh);
      admin = await callerWithRoles(auth.app, auth.db, ['admin']);
      viewerRole = await roleWithPermissions(auth.db, ['contents.view']);
    }, 900_000);

    afterAll(async () => {
      await consumer?.stop();
      await stopAuth(auth);
    });

    it(`refuses a logged-out token within 1 s (p99 of ${TRIALS} logouts), and steady traffic makes no introspection call`, async () => {
      const delays: number[] = [];
      for (let i = 0; i < TRIALS; i++) {
        const viewer = await callerWithRoles(auth.app, auth.db, [viewerRole.name]);
        expect(await status(consumer, viewer.token)).toBe(200);
        const before = auth.introspections();
        for (let j = 0; j < 20; j++) expect(await status(consumer, viewer.token)).toBe(200);
        expect(auth.introspections()).toBe(before);
        expect((await logout(auth.app, viewer.token)).status).toBe(200);
        delays.push(await within(5_000, async () => (await status(consumer, viewer.token)) === 401));
      }
      expect(p99(delays)).toBeLessThan(1_000);
    }, 120_000);

    it(`refuses a removed role within 1 s (p99 of ${TRIALS})`, async () => {
      const delays: number[] = [];
      for (let i = 0; i < TRIALS; i++) {
        const person = await callerWithRoles(auth.app, auth.db, ['user', viewerRole.name]);
        expect(await status(consumer, person.token)).toBe(200);
        const removed = await request(auth.app.getHttpServer())
          .delete(`/api/admin/users/${person.id}/roles/${viewerRole.id}`)
          .set('authorization', `Bearer ${admin.token}`);
        expect(removed.status).toBe(200);
        delays.push(await within(5_000, async () => (await status(consumer, person.token)) === 403));
      }
      expect(p99(delays)).toBeLessThan(1_000);
    }, 120_000);

    it(`refuses every token of a disabled user within 1 s, tokens it verified a moment before included (p99 of ${TRIALS})`, async () => {
      const delays: number[] = [];
      for (let i = 0; i < TRIALS; i++) {
        const person = await callerWithRoles(auth.app, auth.db, [viewerRole.name]);
        for (let j = 0; j < 5; j++) expect(await status(consumer, person.token)).toBe(200);
        const disabled = await request(auth.app.getHttpServer())
          .post(`/api/admin/users/${person.id}/disable`)
          .set('authorization', `Bearer ${admin.token}`)
          .send({});
        expect(disabled.status).toBe(200);
        delays.push(await within(5_000, async () => (await status(consumer, person.token)) === 401));
      }
      expect(p99(delays)).toBeLessThan(1_000);
    }, 120_000);

    it(`refuses the holders of a role within 1 s of that role losing the permission (p99 of ${TRIALS})`, async () => {
      const delays: number[] = [];
      for (let i = 0; i < TRIALS; i++) {
        const role = await roleWithPermissions(auth.db, ['contents.view', 'contents.create']);
        const person = await callerWithRoles(auth.app, auth.db, ['user', role.name]);
        for (let j = 0; j < 5; j++) expect(await status(consumer, person.token)).toBe(200);
        const [create] = await auth.db.query(`SELECT id FROM permissions WHERE name = 'contents.create'`);
        const changed = await request(auth.app.getHttpServer())
          .put(`/api/admin/roles/${role.id}`)
          .set('authorization', `Bearer ${admin.token}`)
          .send({ permission_ids: [create.id] });
        expect(changed.status).toBe(200);
        delays.push(await within(5_000, async () => (await status(consumer, person.token)) === 403));
      }
      expect(p99(delays)).toBeLessThan(1_000);
    }, 120_000);

    it(`refuses every token of a user within 1 s of a password reset (p99 of ${TRIALS})`, async () => {
      const delays: number[] = [];
      for (let i = 0; i < TRIALS; i++) {
        const person = await callerWithRoles(auth.app, auth.db, [viewerRole.name]);
        expect(await status(consumer, person.token)).toBe(200);
        const server = auth.app.getHttpServer();
        expect((await request(server).post('/api/auth/forgot-password').send({ email: person.email })).status).toBe(
          200,
        );
        const token = resetTokenFrom(await auth.smtp.waitForMail(person.email), APP_URL);
        const password = `Another-Garden-Lamp-${i}7`;
        const reset = await request(server)
          .post('/api/auth/reset-password')
          .send({ token, password, password_confirmation: password });
        expect(reset.status).toBe(200);
        delays.push(await within(5_000, async () => (await status(consumer, person.token)) === 401));
      }
      expect(p99(delays)).toBeLessThan(1_000);
    }, 180_000);
  },
);

describe('revocation by events in a packed Nest 12 consumer: a lost stream, failClosed, forged events', () => {
  let folder: string;
  let auth: Auth;
  let proxy: EventsProxy;
  const consumers: RunningConsumer[] = [];

  beforeAll(async () => {
    folder = await installConsumer(12);
    auth = await startAuth({ JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: es256Key() });
    proxy = new EventsProxy(auth.url);
  }, 900_000);

  afterAll(async () => {
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    await proxy?.stop();
    await stopAuth(auth);
  });

  async function consumerVia(env: Record<string, string> = {}): Promise<RunningConsumer> {
    const consumer = await startConsumer(folder, {
      AUTH_URL: await proxy.start(),
      AUTH_CLIENT_ID: CLIENT.id,
      AUTH_CLIENT_SECRET: CLIENT.secret,
      AUTH_MAX_EVENT_LAG_MS: '300',
      AUTH_CACHE_TTL_MS: '100',
      ...env,
    });
    consumers.push(consumer);
    await within(10_000, async () => (await authHealth(consumer)).fresh);
    return consumer;
  }

  it('falls back to introspection while the stream is cut, then recovers and replays what it missed', async () => {
    const consumer = await consumerVia();
    const role = await roleWithPermissions(auth.db, ['contents.view']);
    const during = await callerWithRoles(auth.app, auth.db, [role.name]);
    const missed = await callerWithRoles(auth.app, auth.db, [role.name]);
    expect(await status(consumer, during.token)).toBe(200);
    expect(await status(consumer, missed.token)).toBe(200);
    const connections = proxy.connections.length;

    proxy.cut();
    await within(5_000, async () => !(await authHealth(consumer)).fresh);
    expect(consumer.output()).toMatch(/Security event stream lost/);
    // The stream is down: a logout is seen through introspection (cacheTtlMs), with calls.
    const before = auth.introspections();
    await logout(auth.app, during.token);
    await logout(auth.app, missed.token);
    await within(2_000, async () => (await status(consumer, during.token)) === 401);
    expect(auth.introspections()).toBeGreaterThan(before);

    proxy.restore();
    await within(10_000, async () => (await authHealth(consumer)).fresh);
    // It came back from where it was: the missed logout is known without a call.
    expect(proxy.connections.slice(connections).some((lastEventId) => lastEventId !== undefined)).toBe(true);
    const after = auth.introspections();
    expect(await status(consumer, missed.token)).toBe(401);
    expect(auth.introspections()).toBe(after);
    expect(consumer.output()).toMatch(/Security event stream live/);
  }, 60_000);

  it('answers 503 under failClosed while the stream lags, and serves again once it is back', async () => {
    const consumer = await consumerVia({ AUTH_FAIL_CLOSED: 'true' });
    const viewer = await callerWithRoles(auth.app, auth.db, [
      (await roleWithPermissions(auth.db, ['contents.view'])).name,
    ]);
    expect(await status(consumer, viewer.token)).toBe(200);
    proxy.cut();
    await within(5_000, async () => !(await authHealth(consumer)).fresh);
    const refused = await fetch(`${consumer.baseUrl}/reports`, {
      headers: { authorization: `Bearer ${viewer.token}` },
    });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual(SERVICE_UNAVAILABLE);
    proxy.restore();
    await within(10_000, async () => (await authHealth(consumer)).fresh);
    expect(await status(consumer, viewer.token)).toBe(200);
  }, 60_000);

  it('ignores and logs a forged event, an unsigned one and one signed with an HMAC of the public key', async () => {
    const consumer = await consumerVia();
    const viewer = await callerWithRoles(auth.app, auth.db, [
      (await roleWithPermissions(auth.db, ['contents.view'])).name,
    ]);
    expect(await status(consumer, viewer.token)).toBe(200);
    const sid = (JSON.parse(Buffer.from(viewer.token.split('.')[1], 'base64url').toString()) as { sid: string }).sid;
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const kid = (JSON.parse(Buffer.from(viewer.token.split('.')[0], 'base64url').toString()) as { kid: string }).kid;
    const claims = encode({
      iat: Math.floor(Date.now() / 1000),
      jti: 'forged',
      events: { 'https://schemas.openid.net/secevent/caep/event-type/session-revoked': { sid, sub: viewer.id } },
    });
    const unsigned = `${encode({ alg: 'none', typ: 'secevent+jwt' })}.${claims}.`;
    const otherKeyInput = `${encode({ alg: 'HS256', typ: 'secevent+jwt', kid })}.${claims}`;
    const hmac = `${otherKeyInput}.${createHmac('sha256', 'a guess').update(otherKeyInput).digest('base64url')}`;
    expect(
      proxy.inject(`event: session-revoked\ndata: ${unsigned}\n\nevent: session-revoked\ndata: ${hmac}\n\n`),
    ).toBeGreaterThan(0);
    await within(
      3_000,
      async () => (consumer.output().match(/Ignored a security event that does not verify/g) ?? []).length >= 2,
    );
    expect(await status(consumer, viewer.token)).toBe(200);
    expect((await authHealth(consumer)).fresh).toBe(true);
  }, 60_000);
});

describe('typed permissions in a packed Nest 12 consumer', () => {
  let folder: string;
  let auth: Auth;

  beforeAll(async () => {
    folder = await installConsumer(12);
    auth = await startAuth({});
    // The example's invoices routes name the organization permissions its docs have an administrator create.
    const admin = await callerWithRoles(auth.app, auth.db, ['admin']);
    for (const name of ['invoices.view', 'invoices.approve']) {
      const created = await request(auth.app.getHttpServer())
        .post('/api/admin/organization-permissions')
        .set('authorization', `Bearer ${admin.token}`)
        .send({ name });
      expect(created.status).toBe(201);
    }
  }, 900_000);

  afterAll(() => stopAuth(auth));

  it('refuses to start under strictPermissions when a decorator names a permission the service lacks, naming it', async () => {
    const env = {
      AUTH_URL: auth.url,
      AUTH_CLIENT_ID: CLIENT.id,
      AUTH_CLIENT_SECRET: CLIENT.secret,
      AUTH_STRICT_PERMISSIONS: 'true',
    };
    const failure = await startConsumer(folder, { ...env, EXAMPLE_EXPORTS: 'true' }).then(
      async (started) => (await started.stop(), 'started'),
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/has no permission "reports\.export"/);
    const started = await startConsumer(folder, env);
    await started.stop();
    expect(started.output()).toMatch(/strictPermissions: every permission the routes name exists/);
  }, 60_000);

  it('fails to compile a consumer naming an unknown permission once the generated module is in', async () => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'nest-guard-typed-'));
    try {
      await cp(path.join(folder, 'src'), path.join(work, 'src'), { recursive: true });
      await cp(path.join(folder, 'tsconfig.json'), path.join(work, 'tsconfig.json'));
      await symlink(path.join(folder, 'node_modules'), path.join(work, 'node_modules'));
      await writeFile(path.join(work, 'package.json'), JSON.stringify({ type: 'module' }));
      const run = promisify(execFile);
      const exported = await run(
        process.execPath,
        [path.join(ROOT, 'dist/src/cli/main.js'), 'permissions:export', '--format', 'ts'],
        {
          env: {
            PATH: process.env.PATH,
            APP_ENV: 'test',
            DATABASE_URL: (auth.app.get(DataSource).options as { url: string }).url,
            DB_MIGRATIONS_RUN: 'false',
            JWT_SECRET: TEST_JWT_SECRET,
          },
        },
      );
      expect(exported.stdout).toMatch(/^\/\/ The permissions of the auth service/);
      expect(exported.stdout).toContain('"contents.view",');
      expect(exported.stdout).toContain('export type AppPermission = (typeof PERMISSIONS)[number];');
      await writeFile(path.join(work, 'src/permissions.ts'), exported.stdout);
      // The example's strictPermissions route names a permission the service lacks on purpose: not here.
      const exportsController = path.join(work, 'src/exports.controller.ts');
      await writeFile(
        exportsController,
        (await readFile(exportsController, 'utf8')).replace("'reports.export'", "'contents.view'"),
      );
      const tsc = () =>
        run(
          process.execPath,
          [path.join(folder, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'],
          { cwd: work },
        );
      await tsc().catch((error: { stdout: string }) => {
        throw new Error(`tsc failed on the known permissions:\n${error.stdout}`);
      });
      await writeFile(
        path.join(work, 'src/unknown.controller.ts'),
        `import { Controller, Get } from '@nestjs/common';\nimport { AuthUser, CurrentUser, RequirePermissions } from '@auth-rbac/nest-guard';\n\n@Controller()\nexport class UnknownController {\n  @RequirePermissions('reports.export')\n  @Get('unknown')\n  get(@CurrentUser() user: AuthUser) {\n    return user.has('contents.view');\n  }\n}\n`,
      );
      const failed = await tsc().then(
        () => '',
        (error: { stdout: string }) => error.stdout,
      );
      expect(failed).toMatch(/unknown\.controller\.ts.*'"reports\.export"' is not assignable/);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }, 120_000);
});
