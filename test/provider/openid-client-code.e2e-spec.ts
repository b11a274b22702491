import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ClientsService } from '../../src/clients/index.js';
import { me, registerUser } from '../support/auth-factory.js';
import { createTestApp } from '../support/test-app.js';
import { runScript, scratchProject } from '../standard-clients/scratch-install.js';
import { freePort } from '../support/free-port.js';

const REDIRECT_URI = 'https://rp.example.test/callback';

describe('openid-client (latest, from the registry) as a relying party: authorization code with PKCE, ID token, userinfo, refresh', () => {
  let app: NestFastifyApplication;
  let issuer: string;
  let folder: string;

  beforeAll(async () => {
    folder = await scratchProject(
      'openid-client-code-consumer',
      { 'openid-client': 'latest' },
      {
        'run.mjs': readFileSync(
          path.join(import.meta.dirname, '../standard-clients/apps/openid-client-code-run.mjs'),
          'utf8',
        ),
      },
    );
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    app = await createTestApp({ env: { ISSUER: issuer } });
    await app.listen(port, '127.0.0.1');
  }, 600_000);

  afterAll(async () => {
    await app?.close();
  });

  it('signs a person in through the pages and checks every token it gets', async () => {
    const { secret } = await app.get(ClientsService).register(
      'openid-client-rp',
      {
        name: 'An openid-client app',
        type: 'confidential',
        redirectUris: [REDIRECT_URI],
        postLogoutRedirectUris: [],
        firstParty: true,
        backchannelLogoutUri: null,
      },
      'admin',
    );
    const user = await registerUser(app);
    const seen = JSON.parse(
      await runScript(folder, 'run.mjs', {
        ISSUER: issuer,
        CLIENT_ID: 'openid-client-rp',
        CLIENT_SECRET: secret!,
        REDIRECT_URI,
        EMAIL: user.email,
        PASSWORD: user.password,
      }),
    );
    expect(seen).toMatchObject({
      page_status: 200,
      sign_in_status: 302,
      callback_iss: issuer,
      token_type: 'bearer',
      scope: 'openid profile email offline_access',
      claims: { iss: issuer, aud: 'openid-client-rp', sub: user.id, email: user.email, name: user.name, amr: ['pwd'] },
      userinfo: { sub: user.id, email: user.email },
      refreshed: { has_access_token: true, has_refresh_token: true },
    });
    expect((await me(app, seen.access_token)).status).toBe(200);
  });
});
