import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import { registerUser, type RegisteredUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { scratchProject, startScript, type RunningProcess } from './scratch-install.js';

const ISSUER = 'https://auth.example.test';
const OTHER_ISSUER = 'https://other-auth.example.test';
const KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();

/** What a Nest developer installs to guard a service the usual way, from the npm registry. */
const PASSPORT_DEPENDENCIES = {
  '@nestjs/common': '^11.0.0',
  '@nestjs/core': '^11.0.0',
  '@nestjs/platform-express': '^11.0.0',
  '@nestjs/passport': '^11.0.0',
  passport: '^0.7.0',
  'passport-jwt': '^4.0.1',
  'jwks-rsa': '^3.1.0',
  'reflect-metadata': '^0.2.2',
  rxjs: '^7.8.1',
};

/** A temp token as a person with an authenticator app receives it after the right password. */
async function tempTokenOf(app: NestFastifyApplication, user: RegisteredUser): Promise<string> {
  const authed = (path: string, body: object = {}) =>
    request(app.getHttpServer()).post(path).set('authorization', `Bearer ${user.tokens.access_token}`).send(body);
  const started = await authed('/api/account/totp');
  expect(started.status).toBe(200);
  const totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
  expect((await authed('/api/account/totp/confirm', { code: totp.generate() })).status).toBe(200);
  const login = await request(app.getHttpServer())
    .post('/api/auth/login')
    .send({ email: user.email, password: user.password });
  expect(login.body.data.requires_otp).toBe(true);
  return login.body.data.temp_token as string;
}

describe('a Nest service on @nestjs/passport + passport-jwt + jwks-rsa (installed from the registry), auth service on ES256', () => {
  // Two services on one key: the second names another issuer, so only `iss` tells its tokens apart.
  const fixture = useTestApp({
    listen: true,
    env: {
      JWT_ALGORITHM: 'ES256',
      JWT_PRIVATE_KEY: KEY,
      SERVICE_CLIENTS: 'reports:reports-secret-0123456789-abcdefgh',
    },
    instances: [{ ISSUER }, { ISSUER: OTHER_ISSUER }],
  });
  let auth: NestFastifyApplication;
  let consumer: RunningProcess;
  let baseUrl: string;

  beforeAll(async () => {
    auth = fixture.apps[0];
    const folder = await scratchProject('passport-jwt-consumer', PASSPORT_DEPENDENCIES, {
      'main.cjs': readFileSync(path.join(import.meta.dirname, 'apps/passport-consumer.cjs'), 'utf8'),
    });
    const authUrl = (await auth.getUrl()).replace('[::1]', '127.0.0.1');
    const started = await startScript(folder, 'main.cjs', { AUTH_URL: authUrl, ISSUER }, /Listening on (\S+)/);
    consumer = started;
    baseUrl = started.match[1];
  }, 900_000);

  afterAll(async () => {
    await consumer?.stop();
  });

  const call = (route: 'whoami' | 'lax', token?: string) =>
    fetch(`${baseUrl}/${route}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('accepts an access token: 200, with the user as subject', async () => {
    const user = await registerUser(auth);
    for (const route of ['whoami', 'lax'] as const) {
      const res = await call(route, user.tokens.access_token);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: user.id, token_type: 'access' });
    }
  });

  it('accepts a service token of the client credentials grant: 200, with the client as subject', async () => {
    const granted = await request(auth.getHttpServer())
      .post('/api/auth/token')
      .type('form')
      .send('grant_type=client_credentials&client_id=reports&client_secret=reports-secret-0123456789-abcdefgh');
    expect(granted.status).toBe(200);
    const res = await call('whoami', granted.body.access_token);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 'reports', token_type: 'access' });
  });

  it('refuses a refresh token: 401, even when the consumer checks nothing but the signature', async () => {
    const user = await registerUser(auth);
    for (const route of ['whoami', 'lax'] as const) {
      expect((await call(route, user.tokens.refresh_token)).status).toBe(401);
    }
  });

  it('refuses a second-factor temp token: 401, even when the consumer checks nothing but the signature', async () => {
    const user = await registerUser(auth);
    const tempToken = await tempTokenOf(auth, user);
    for (const route of ['whoami', 'lax'] as const) {
      expect((await call(route, tempToken)).status).toBe(401);
    }
  });

  it("refuses another issuer's access token signed with the same key: 401", async () => {
    const user = await registerUser(fixture.apps[1]);
    expect((await call('whoami', user.tokens.access_token)).status).toBe(401);
  });

  it('refuses a request without a token: 401', async () => {
    expect((await call('whoami')).status).toBe(401);
  });
});
