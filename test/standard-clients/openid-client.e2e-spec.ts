import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeJwt, me, registerUser } from '../support/auth-factory.js';
import { createTestApp } from '../support/test-app.js';
import { runScript, scratchProject } from './scratch-install.js';
import { freePort } from '../support/free-port.js';

const ORDERS = { id: 'orders', secret: 'orders-secret-0123456789-abcdefghijkl' };

describe('openid-client (latest, installed from the registry): discovery, client credentials, introspection, revocation, userinfo, refresh', () => {
  let app: NestFastifyApplication;
  let issuer: string;
  let folder: string;

  beforeAll(async () => {
    folder = await scratchProject(
      'openid-client-consumer',
      { 'openid-client': 'latest' },
      { 'run.mjs': readFileSync(path.join(import.meta.dirname, 'apps/openid-client-run.mjs'), 'utf8') },
    );
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    app = await createTestApp({ env: { ISSUER: issuer, SERVICE_CLIENTS: `${ORDERS.id}:${ORDERS.secret}` } });
    await app.listen(port, '127.0.0.1');
  }, 900_000);

  afterAll(async () => {
    await app?.close();
  });

  it.each(['post', 'basic'])('works unchanged with client_secret_%s', async (method) => {
    const user = await registerUser(app);
    const seen = JSON.parse(
      await runScript(folder, 'run.mjs', {
        ISSUER: issuer,
        CLIENT_ID: ORDERS.id,
        CLIENT_SECRET: ORDERS.secret,
        AUTH_METHOD: method,
        REFRESH_TOKEN: user.tokens.refresh_token,
        USER_ACCESS_TOKEN: user.tokens.access_token,
        USER_ID: user.id,
      }),
    );
    expect(seen).toMatchObject({
      issuer,
      token_endpoint: `${issuer}/api/auth/token`,
      granted: { token_type: 'bearer', expires_in: 900, has_access_token: true },
      introspected: { active: true, sub: 'orders', client_id: 'orders', token_type: 'access' },
      afterRevocation: { active: false },
      refreshed: { has_access_token: true, has_refresh_token: true },
      reuse: 'invalid_grant',
      userinfo: { sub: user.id, email: user.email, email_verified: false, name: 'Test User' },
    });
    expect(decodeJwt(seen.access_token).payload).toMatchObject({ iss: issuer, sub: 'orders' });
    // The reused refresh token revoked the session: its first access token is refused too.
    expect((await me(app, user.tokens.access_token)).status).toBe(401);
  });
});
