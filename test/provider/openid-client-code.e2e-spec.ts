import { readFileSync } from 'node:fs';
import path from 'node:path';
import { me, registerUser } from '../support/auth-factory.js';
import { startProviderService, type ProviderService } from '../support/provider-service.js';
import { runScript, scratchProject } from '../standard-clients/scratch-install.js';

const REDIRECT_URI = 'https://rp.example.test/callback';
const POST_LOGOUT_REDIRECT_URI = 'https://rp.example.test/signed-out';

/**
 * openid-client (the registry's latest) as a confidential relying party of the service started as
 * the README says (`npm start`, built), its client registered with the CLI as the docs say.
 */
describe('openid-client (latest, from the registry) as a relying party of the started service: code with PKCE, ID token, userinfo, refresh, RP-initiated logout', () => {
  let provider: ProviderService;
  let folder: string;
  let secret: string;

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
    provider = await startProviderService();
    secret = (await provider.createClient({
      id: 'openid-client-rp',
      name: 'An openid-client app',
      redirectUris: [REDIRECT_URI],
      postLogoutRedirectUris: [POST_LOGOUT_REDIRECT_URI],
    }))!;
  }, 900_000);

  afterAll(async () => {
    await provider?.stop();
  });

  it('signs a person in through the pages, checks every token, refreshes, and after its logout its refresh token is refused', async () => {
    const { issuer } = provider;
    const user = await registerUser(issuer);
    const seen = JSON.parse(
      await runScript(folder, 'run.mjs', {
        ISSUER: issuer,
        CLIENT_ID: 'openid-client-rp',
        CLIENT_SECRET: secret,
        REDIRECT_URI,
        POST_LOGOUT_REDIRECT_URI,
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
      refreshed: { has_access_token: true, new_refresh_token: true },
      refreshed_userinfo: { sub: user.id, email: user.email },
      end_session_status: 302,
      end_session_location: `${POST_LOGOUT_REDIRECT_URI}?state=bye`,
      refresh_after_logout: { refused: true, status: 400, error: 'invalid_grant' },
    });
    // The logout ended the session the sign-in made: its access tokens, the refreshed one too, no longer work.
    expect((await me(issuer, seen.access_token)).status).toBe(401);
    expect((await me(issuer, seen.refreshed_access_token)).status).toBe(401);
  });
});
