import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateKeyPairSync } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ClientsService } from '../../src/clients/index.js';
import { decodeJwt, sleep } from '../support/auth-factory.js';
import { callerWithRoles, roleWithPermissions, type Caller } from '../support/rbac-factory.js';
import { createTestApp } from '../support/test-app.js';
import { pkce, ProviderBrowser, redirectParameters } from '../provider/provider-browser.js';
import { installConsumer, startConsumer, type RunningConsumer } from './consumer-support.js';

const CLIENT = { id: 'reports-service', secret: 'reports-service-secret-0123456789-abcdef' };
const APP_URL = 'http://auth.example.test';
const WEB = 'https://web.example.test/callback';
const BYE = 'https://web.example.test/signed-out';

/** Waits (polling every few ms) until the condition holds; returns how long it took. */
async function within(ms: number, condition: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await condition()) return performance.now() - started;
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await sleep(5);
  }
}

describe('one session model at another service: a packed Nest 12 consumer refuses a relying party token within 1 s of every end of its session', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  let consumer: RunningConsumer;
  let admin: Caller;
  let viewerRole: { id: string; name: string };
  let secret: string;

  const server = () => app.getHttpServer();
  const status = (token: string) =>
    fetch(`${consumer.baseUrl}/reports`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => {
      await res.arrayBuffer();
      return res.status;
    });

  beforeAll(async () => {
    const folder = await installConsumer(12);
    // ES256: the consumer verifies access tokens locally with the published key, and follows the event stream.
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' });
    app = await createTestApp({
      env: {
        SERVICE_CLIENTS: `${CLIENT.id}:${CLIENT.secret}`,
        APP_URL,
        JWT_ALGORITHM: 'ES256',
        JWT_PRIVATE_KEY: key.toString(),
      },
    });
    await app.listen(0, '127.0.0.1');
    db = app.get(DataSource);
    consumer = await startConsumer(folder, {
      AUTH_URL: (await app.getUrl()).replace('[::1]', '127.0.0.1'),
      AUTH_CLIENT_ID: CLIENT.id,
      AUTH_CLIENT_SECRET: CLIENT.secret,
    });
    await within(10_000, async () => {
      const health = (await (await fetch(`${consumer.baseUrl}/health/auth`)).json()) as { data: { fresh: boolean } };
      return health.data.fresh;
    });
    admin = await callerWithRoles(app, db, ['admin']);
    viewerRole = await roleWithPermissions(db, ['contents.view']);
    ({ secret } = (await app.get(ClientsService).register(
      'web-app',
      {
        name: 'Web app',
        type: 'confidential',
        redirectUris: [WEB],
        postLogoutRedirectUris: [BYE],
        backchannelLogoutUri: null,
        firstParty: true,
      },
      'admin',
    )) as { secret: string });
  }, 900_000);

  afterAll(async () => {
    await consumer?.stop();
    await app?.close();
  });

  /** A person with `contents.view` signs in through the provider; the relying party's tokens. */
  async function relyingPartyTokens() {
    const person = await callerWithRoles(app, db, [viewerRole.name]);
    const browser = new ProviderBrowser(app);
    const pair = pkce();
    const page = await browser.authorize({
      response_type: 'code',
      client_id: 'web-app',
      redirect_uri: WEB,
      scope: 'openid offline_access',
      state: 's',
      code_challenge: pair.challenge,
      code_challenge_method: 'S256',
    });
    const done = await browser.signIn(page, person.email, person.password);
    const code = redirectParameters(done).get('code')!;
    const res = await request(server())
      .post('/api/auth/token')
      .type('form')
      .set('authorization', `Basic ${Buffer.from(`web-app:${secret}`).toString('base64')}`)
      .send(
        new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: WEB,
          code_verifier: pair.verifier,
        }).toString(),
      );
    expect(res.status).toBe(200);
    const issued = res.body as { access_token: string; id_token: string };
    return { person, browser, issued, sid: decodeJwt(issued.id_token).payload.sid as string };
  }

  type Tokens = Awaited<ReturnType<typeof relyingPartyTokens>>;
  const ends: [string, (tokens: Tokens) => Promise<number>][] = [
    [
      'logout',
      async ({ issued }) =>
        (await request(server()).post('/api/auth/logout').set('authorization', `Bearer ${issued.access_token}`)).status,
    ],
    [
      'revoking from the sessions list',
      async ({ person, sid }) =>
        (await request(server()).delete(`/api/account/sessions/${sid}`).set('authorization', `Bearer ${person.token}`))
          .status,
    ],
    [
      'an administrator revoking it',
      async ({ person, sid }) =>
        (
          await request(server())
            .delete(`/api/admin/users/${person.id}/sessions/${sid}`)
            .set('authorization', `Bearer ${admin.token}`)
        ).status,
    ],
    [
      'a password change',
      async ({ person }) => {
        const password = 'Another-Quiet-Harbour-71';
        return (
          await request(server())
            .post('/api/account/password')
            .set('authorization', `Bearer ${person.token}`)
            .send({ current_password: person.password, password, password_confirmation: password })
        ).status;
      },
    ],
    [
      'disabling',
      async ({ person }) =>
        (
          await request(server())
            .post(`/api/admin/users/${person.id}/disable`)
            .set('authorization', `Bearer ${admin.token}`)
            .send({})
        ).status,
    ],
    [
      'deletion',
      async ({ person }) =>
        (await request(server()).delete('/api/account').set('authorization', `Bearer ${person.token}`).send({})).status,
    ],
    [
      'RP-initiated logout',
      async ({ browser, issued }) => {
        const done = await browser.get('/api/auth/authorize/end-session', {
          id_token_hint: issued.id_token,
          post_logout_redirect_uri: BYE,
        });
        expect(done.headers.location).toBe(BYE);
        return done.status === 302 ? 200 : done.status;
      },
    ],
  ];

  it.each(ends)(
    '%s: refused within 1 s',
    async (_name, end) => {
      const tokens = await relyingPartyTokens();
      for (let i = 0; i < 5; i++) expect(await status(tokens.issued.access_token)).toBe(200);
      expect(await end(tokens)).toBe(200);
      const delay = await within(5_000, async () => (await status(tokens.issued.access_token)) === 401);
      expect(delay).toBeLessThan(1_000);
    },
    60_000,
  );
});
