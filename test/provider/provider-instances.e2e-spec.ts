import { createLocalJWKSet, jwtVerify } from 'jose';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { registrationBody } from '../support/auth-factory.js';
import { runCli } from '../support/cli-runner.js';
import { useRedis } from '../support/redis.js';
import { startService, type RunningService } from '../support/service-process.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';
import { createDatabase, type TestDatabase } from '../support/test-database.js';
import { pkce, ProviderBrowser, redirectParameters } from './provider-browser.js';

const ISSUER = 'https://auth.example.test';
const CLIENT_ID = 'everywhere';
const REDIRECT_URI = 'http://127.0.0.1/callback';
const BYE = 'http://127.0.0.1/signed-out';

/**
 * Two instances of the built service (`node dist/src/main.js`) on one PostgreSQL database and one
 * Redis, under one issuer: the provider's state (browser sign-ins, codes, consents, its ID-token
 * key) is in the database, so each step of a sign-in may land on either instance.
 */
describe('the OpenID provider on two instances behind one issuer', () => {
  const redis = useRedis();
  let database: TestDatabase;
  let cwd: string;
  const instances: RunningService[] = [];

  beforeAll(async () => {
    database = await createDatabase('seeded');
    cwd = mkdtempSync(path.join(tmpdir(), 'provider-instances-'));
    const created = await runCli(database.url, [
      'create-client',
      CLIENT_ID,
      '--name',
      'On every instance',
      '--public',
      '--first-party',
      '--redirect-uri',
      REDIRECT_URI,
      '--post-logout-redirect-uri',
      BYE,
    ]);
    expect(created.code).toBe(0);
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      ISSUER,
      JWT_SECRET: TEST_JWT_SECRET,
      DATA_DIR: path.join(cwd, 'data'),
      APP_ENV: 'test',
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_ITERATIONS: '1',
    };
    // One after the other: the first makes the ID-token key, the second finds it.
    instances.push(await startService(cwd, env, 60_000));
    instances.push(await startService(cwd, env, 60_000));
  }, 300_000);

  afterAll(async () => {
    for (const instance of instances) await instance.stop();
    await database?.drop();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  const [a, b] = [() => instances[0]!.baseUrl, () => instances[1]!.baseUrl];

  function token(base: string, form: Record<string, string>) {
    return request(base)
      .post('/api/auth/token')
      .type('form')
      .send(new URLSearchParams({ client_id: CLIENT_ID, ...form }).toString());
  }

  it('signs in on one, exchanges the code on the other, and an end of the session on either holds on both', async () => {
    const person = registrationBody();
    expect((await request(a()).post('/api/auth/register').send(person)).status).toBe(201);

    // The sign-in pages on the first instance.
    const pair = pkce();
    const query = {
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      scope: 'openid email offline_access',
      state: 'state-1',
      nonce: 'nonce-1',
      code_challenge: pair.challenge,
      code_challenge_method: 'S256',
    };
    const onA = new ProviderBrowser(a());
    const page = await onA.authorize(query);
    expect(page.status).toBe(200);
    const done = await onA.signIn(page, person.email as string, person.password as string);
    expect(done.status).toBe(302);
    const code = redirectParameters(done).get('code')!;

    // The code exchanged on the second.
    const issued = await token(b(), {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: pair.verifier,
    });
    expect(issued.status).toBe(200);
    // …and once only, whichever instance is asked next.
    const replay = await token(a(), {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: pair.verifier,
    });
    expect(replay.body.error).toBe('invalid_grant');
    const again = await onA.on(b()).authorize({ ...query, state: 'state-2' });
    expect(again.status).toBe(302);
    const fresh = await token(a(), {
      grant_type: 'authorization_code',
      code: redirectParameters(again).get('code')!,
      redirect_uri: REDIRECT_URI,
      code_verifier: pair.verifier,
    });
    expect(fresh.status).toBe(200);

    // The ID token verifies with the JWKS of either instance: one key, kept in the database.
    for (const base of [a(), b()]) {
      const jwks = createLocalJWKSet((await request(base).get('/.well-known/jwks.json')).body);
      const { payload } = await jwtVerify(fresh.body.id_token, jwks, { issuer: ISSUER, audience: CLIENT_ID });
      expect(payload).toMatchObject({ email: (person.email as string).toLowerCase(), nonce: 'nonce-1' });
    }

    // Refresh rotates on the first; the access tokens work on both.
    const rotated = await token(a(), { grant_type: 'refresh_token', refresh_token: fresh.body.refresh_token });
    expect(rotated.status).toBe(200);
    for (const base of [a(), b()]) {
      const me = await request(base).get('/api/auth/me').set('authorization', `Bearer ${rotated.body.access_token}`);
      expect(me.status).toBe(200);
    }

    // RP-initiated logout on the second ends the browser's sign-in and every token issued under it.
    const ended = await onA.on(b()).get('/api/auth/authorize/end-session', {
      id_token_hint: fresh.body.id_token,
      post_logout_redirect_uri: BYE,
      state: 'bye',
    });
    expect(ended.status).toBe(302);
    expect(ended.headers.location).toBe(`${BYE}?state=bye`);
    for (const base of [a(), b()]) {
      const me = await request(base).get('/api/auth/me').set('authorization', `Bearer ${rotated.body.access_token}`);
      expect(me.status).toBe(401);
      const first = await request(base).get('/api/auth/me').set('authorization', `Bearer ${issued.body.access_token}`);
      expect(first.status).toBe(401);
    }
    const refusedOnA = await token(a(), { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token });
    expect(refusedOnA.body.error).toBe('invalid_grant');
    const refusedOnB = await token(b(), { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token });
    expect(refusedOnB.body.error).toBe('invalid_grant');
    // The browser is signed out on both: prompt=none asks for a sign-in.
    for (const base of [a(), b()]) {
      const silent = await onA.on(base).authorize({ ...query, prompt: 'none', state: 'state-3' });
      expect(redirectParameters(silent).get('error')).toBe('login_required');
    }
  }, 120_000);
});
