import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { IntrospectionService } from '../../src/introspection/introspection.service.js';
import {
  callerWithOnlyPermissions,
  callerWithRoles,
  type Caller,
  roleWithPermissions,
} from '../support/rbac-factory.js';
import { logout, sleep } from '../support/auth-factory.js';
import { createTestApp } from '../support/test-app.js';
import { installConsumer, installedNestVersion, startConsumer, type RunningConsumer } from './consumer-support.js';

const ISSUER = 'https://auth.example.test';
const CLIENT = { id: 'reports-service', secret: 'reports-service-secret-0123456789-abcdef' };
const UNAUTHENTICATED = {
  success: false,
  error: { code: 'UNAUTHENTICATED', message: 'The token is missing, invalid, expired or revoked.' },
};
const SERVICE_UNAVAILABLE = {
  success: false,
  error: { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable. Try again shortly.' },
};

const es256Key = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

/** Forwards every request to whichever auth instance is current: a rotation is a switch of instance. */
class SwitchableAuthUrl {
  private server!: Server;
  target = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.forward(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Never rejects: whatever fails (the request, the target) is answered 502, or cut off once started. */
  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Whole answers only: the event stream never ends, so it is not carried and the consumer
    // introspects (its fallback), as this test of key rotation always had it.
    if (req.url?.startsWith('/api/auth/events')) {
      res.writeHead(503).end();
      return;
    }
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const upstream = await fetch(`${this.target}${req.url}`, {
        method: req.method,
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
        ) as Record<string, string>,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    } catch {
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end();
    }
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

async function listen(env: Record<string, string>): Promise<{ app: NestFastifyApplication; url: string }> {
  const app = await createTestApp({
    env: { SERVICE_CLIENTS: `${CLIENT.id}:${CLIENT.secret}`, ISSUER: ISSUER, ...env },
  });
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

// Installing Nest from the registry and compiling takes a while: once per major for this file.
describe.each([
  { nestMajor: 12 as const, algorithm: 'ES256' },
  { nestMajor: 11 as const, algorithm: 'HS256' },
])(
  'the packed package in a Nest $nestMajor service outside the repository (auth service on $algorithm)',
  ({ nestMajor, algorithm }) => {
    const CACHE_TTL_MS = 600;
    let folder: string;
    let auth: { app: NestFastifyApplication; url: string };
    let consumer: RunningConsumer;
    let db: DataSource;
    let admin: Caller;

    beforeAll(async () => {
      folder = await installConsumer(nestMajor);
      expect((await installedNestVersion(folder)).split('.')[0]).toBe(String(nestMajor));
      auth = await listen(algorithm === 'HS256' ? {} : { JWT_ALGORITHM: algorithm, JWT_PRIVATE_KEY: es256Key() });
      db = auth.app.get(DataSource);
      consumer = await startConsumer(folder, {
        AUTH_URL: auth.url,
        AUTH_CLIENT_ID: CLIENT.id,
        AUTH_CLIENT_SECRET: CLIENT.secret,
        AUTH_ISSUER: ISSUER,
        AUTH_CACHE_TTL_MS: String(CACHE_TTL_MS),
        // These tests are of the introspection mode and its cacheTtlMs; the event stream's own
        // tests are in revocation-events.e2e-spec.ts.
        AUTH_REVOCATION: 'introspection',
        AUTH_RESOURCE: 'https://reports.example.com',
      });
      admin = await callerWithRoles(auth.app, db, ['admin']);
    }, 900_000);

    afterAll(async () => {
      await consumer?.stop();
      await auth?.app.close();
    });

    const reports = (token?: string) =>
      fetch(`${consumer.baseUrl}/reports`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

    it('answers 401 without a token, with the contract body', async () => {
      const res = await reports();
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(UNAUTHENTICATED);
      expect((await fetch(`${consumer.baseUrl}/health`)).status).toBe(200);
    });

    it('opens a @Public() route of the guarded service to anyone, with or without a token', async () => {
      for (const headers of [{}, { authorization: 'Bearer not-a-token' }]) {
        const res = await fetch(`${consumer.baseUrl}/reports/sample`, { headers });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({
          success: true,
          data: { items: [{ id: 'weekly', title: 'Weekly report' }], total: 1, viewer: null },
        });
      }
    });

    it('publishes its protected resource metadata (RFC 9728) naming the auth service, and points its 401s at it', async () => {
      const metadata = await fetch(`${consumer.baseUrl}/.well-known/oauth-protected-resource`);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toEqual({
        resource: 'https://reports.example.com',
        authorization_servers: [ISSUER],
        scopes_supported: ['reports'],
        bearer_methods_supported: ['header'],
      });
      expect((await reports()).headers.get('www-authenticate')).toBe(
        'Bearer resource_metadata="https://reports.example.com/.well-known/oauth-protected-resource"',
      );
    });

    it('answers 403 to a plain user on a @RequirePermissions route, and 200 to the admin', async () => {
      const plain = await callerWithRoles(auth.app, db, ['user']);
      const refused = await reports(plain.token);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({
        success: false,
        error: {
          code: 'FORBIDDEN',
          message: 'Missing permission: contents.view.',
          details: [{ permission: 'contents.view' }],
        },
      });
      const allowed = await reports(admin.token);
      expect(allowed.status).toBe(200);
      expect(((await allowed.json()) as { data: { viewer: unknown } }).data.viewer).toEqual({
        id: admin.id,
        email: admin.email,
      });
    });

    it('refuses a token signed with another key or secret, and a refresh token', async () => {
      const [header, payload] = admin.token.split('.');
      expect((await reports(`${header}.${payload}.AAAA`)).status).toBe(401);
      expect((await reports(admin.tokens.refresh_token)).status).toBe(401);
    });

    it('refuses the token within cacheTtlMs after logout', async () => {
      const viewer = await callerWithOnlyPermissions(auth.app, db, ['contents.view']);
      expect((await reports(viewer.token)).status).toBe(200);
      expect((await logout(auth.app, viewer.token)).status).toBe(200);
      await sleep(CACHE_TTL_MS + 100);
      const res = await reports(viewer.token);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(UNAUTHENTICATED);
    });

    it('sees a role change within cacheTtlMs', async () => {
      const person = await callerWithRoles(auth.app, db, ['user']);
      expect((await reports(person.token)).status).toBe(403);
      const role = await roleWithPermissions(db, ['contents.view']);
      const granted = await request(auth.app.getHttpServer())
        .post(`/api/admin/users/${person.id}/roles`)
        .set('authorization', `Bearer ${admin.token}`)
        .send({ role_ids: [role.id] });
      expect(granted.status).toBe(200);
      await sleep(CACHE_TTL_MS + 100);
      expect((await reports(person.token)).status).toBe(200);
    });

    it("takes a service token of the client credentials grant, with the client's role, and refuses it once revoked", async () => {
      const role = await roleWithPermissions(db, ['contents.view']);
      const given = await request(auth.app.getHttpServer())
        .post(`/api/admin/clients/${CLIENT.id}/roles`)
        .set('authorization', `Bearer ${admin.token}`)
        .send({ role_ids: [role.id] });
      expect(given.status).toBe(200);
      const basic = `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`;
      const granted = await request(auth.app.getHttpServer())
        .post('/api/auth/token')
        .set('authorization', basic)
        .type('form')
        .send('grant_type=client_credentials');
      expect(granted.status).toBe(200);
      const serviceToken = granted.body.access_token as string;
      const allowed = await reports(serviceToken);
      expect(allowed.status).toBe(200);
      expect(((await allowed.json()) as { data: { viewer: unknown } }).data.viewer).toEqual({
        id: CLIENT.id,
        email: '',
      });
      const revoked = await request(auth.app.getHttpServer())
        .post('/api/auth/revoke')
        .set('authorization', basic)
        .type('form')
        .send(`token=${serviceToken}`);
      expect(revoked.status).toBe(200);
      await sleep(CACHE_TTL_MS + 100);
      expect((await reports(serviceToken)).status).toBe(401);
    });
  },
);

describe('the packed package in a Nest 12 service: load, rotation and an unreachable auth service', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await installConsumer(12);
  }, 900_000);

  it('serves 50 users for 10 s with the defaults: only 200s, and introspection calls within users x (duration / cacheTtl) + users', async () => {
    const USERS = 50;
    const DURATION_MS = 10_000;
    const CACHE_TTL_MS = 5_000;
    const auth = await listen({ JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: es256Key() });
    // No AUTH_ISSUER: the guard reads the issuer from the discovery document at AUTH_URL.
    const consumer = await startConsumer(folder, {
      AUTH_URL: auth.url,
      AUTH_CLIENT_ID: CLIENT.id,
      AUTH_CLIENT_SECRET: CLIENT.secret,
    });
    try {
      const db = auth.app.get(DataSource);
      const role = await roleWithPermissions(db, ['contents.view']);
      const users: Caller[] = [];
      for (let i = 0; i < USERS; i++) users.push(await callerWithRoles(auth.app, db, [role.name]));
      // Every introspection the consumer makes, counted where the service answers it.
      const introspection = auth.app.get(IntrospectionService);
      const answer = introspection.introspect.bind(introspection);
      let introspections = 0;
      introspection.introspect = (token: string) => (introspections++, answer(token));
      const statuses = new Map<number, number>();
      const end = Date.now() + DURATION_MS;
      await Promise.all(
        users.map(async (user) => {
          while (Date.now() < end) {
            const res = await fetch(`${consumer.baseUrl}/reports`, {
              headers: { authorization: `Bearer ${user.token}` },
            });
            await res.arrayBuffer();
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          }
        }),
      );
      expect([...statuses.keys()]).toEqual([200]);
      expect(statuses.get(200)).toBeGreaterThan(USERS);
      expect(introspections).toBeGreaterThanOrEqual(USERS);
      expect(introspections).toBeLessThanOrEqual(USERS * (DURATION_MS / CACHE_TTL_MS) + USERS);
    } finally {
      await consumer.stop();
      await auth.app.close();
    }
  }, 120_000);

  it('keeps tokens of the old key working through a rotation under traffic, and takes tokens of the new key at once', async () => {
    const oldKey = es256Key();
    const newKey = es256Key();
    const { createPublicKey } = await import('node:crypto');
    const before = await listen({ JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: oldKey });
    const after = await listen({
      JWT_ALGORITHM: 'ES256',
      JWT_PRIVATE_KEY: newKey,
      JWT_PREVIOUS_PUBLIC_KEYS: createPublicKey(oldKey).export({ format: 'pem', type: 'spki' }).toString(),
    });
    const switchable = new SwitchableAuthUrl();
    switchable.target = before.url;
    const authUrl = await switchable.start();
    const consumer = await startConsumer(folder, {
      AUTH_URL: authUrl,
      AUTH_CLIENT_ID: CLIENT.id,
      AUTH_CLIENT_SECRET: CLIENT.secret,
      AUTH_ISSUER: ISSUER,
      AUTH_CACHE_TTL_MS: '200',
    });
    try {
      const db = before.app.get(DataSource);
      const role = await roleWithPermissions(db, ['contents.view']);
      const oldUser = await callerWithRoles(before.app, db, [role.name]);
      const get = (token: string) =>
        fetch(`${consumer.baseUrl}/reports`, { headers: { authorization: `Bearer ${token}` } }).then(
          (res) => res.status,
        );
      expect(await get(oldUser.token)).toBe(200);
      // Traffic with the old key's token goes on while the service rotates.
      let stop = false;
      const during: number[] = [];
      const traffic = (async () => {
        while (!stop) during.push(await get(oldUser.token));
      })();
      switchable.target = after.url;
      const newUser = await callerWithRoles(after.app, db, [role.name]);
      expect(await get(newUser.token)).toBe(200);
      await sleep(500);
      expect(await get(oldUser.token)).toBe(200);
      // And on the service itself.
      expect(
        (await request(after.app.getHttpServer()).get('/api/auth/me').set('authorization', `Bearer ${oldUser.token}`))
          .status,
      ).toBe(200);
      stop = true;
      await traffic;
      expect(during.length).toBeGreaterThan(0);
      expect(new Set(during)).toEqual(new Set([200]));
    } finally {
      await consumer.stop();
      await switchable.stop();
      await Promise.all([before.app.close(), after.app.close()]);
    }
  }, 120_000);

  it('refuses a token signed by another key pair under the published kid, or with the public key as an HMAC secret', async () => {
    const key = es256Key();
    const auth = await listen({ JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: key });
    const consumer = await startConsumer(folder, {
      AUTH_URL: auth.url,
      AUTH_CLIENT_ID: CLIENT.id,
      AUTH_CLIENT_SECRET: CLIENT.secret,
      AUTH_ISSUER: ISSUER,
    });
    try {
      const { createHmac, createPrivateKey, createPublicKey, sign } = await import('node:crypto');
      const admin = await callerWithRoles(auth.app, auth.app.get(DataSource), ['admin']);
      const [headerPart, payloadPart] = admin.token.split('.');
      const header = JSON.parse(Buffer.from(headerPart, 'base64url').toString()) as Record<string, unknown>;
      const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const otherPair = sign('sha256', Buffer.from(`${headerPart}.${payloadPart}`), {
        key: createPrivateKey(es256Key()),
        dsaEncoding: 'ieee-p1363',
      });
      const confusedInput = `${encode({ ...header, alg: 'HS256' })}.${payloadPart}`;
      const publicPem = createPublicKey(key).export({ format: 'pem', type: 'spki' }).toString();
      const confused = `${confusedInput}.${createHmac('sha256', publicPem).update(confusedInput).digest('base64url')}`;
      for (const token of [`${headerPart}.${payloadPart}.${otherPair.toString('base64url')}`, confused]) {
        const res = await fetch(`${consumer.baseUrl}/reports`, { headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(401);
        expect(
          (await request(auth.app.getHttpServer()).get('/api/auth/me').set('authorization', `Bearer ${token}`)).status,
        ).toBe(401);
      }
    } finally {
      await consumer.stop();
      await auth.app.close();
    }
  }, 60_000);

  it('answers 503 with the contract body, quickly, when the auth service is unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const consumer = await startConsumer(folder, {
      AUTH_URL: `http://127.0.0.1:${port}`,
      AUTH_CLIENT_ID: CLIENT.id,
      AUTH_CLIENT_SECRET: CLIENT.secret,
      AUTH_TIMEOUT_MS: '1000',
    });
    try {
      const started = Date.now();
      const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const token = `${encode({ alg: 'ES256', typ: 'JWT', kid: 'some-key' })}.${encode({ sub: 'someone' })}.AAAA`;
      const res = await fetch(`${consumer.baseUrl}/reports`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual(SERVICE_UNAVAILABLE);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await consumer.stop();
    }
  });
});
