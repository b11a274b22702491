import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomInt, randomUUID } from 'node:crypto';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { ClientsService } from '../../src/clients/index.js';
import { decodeJwt, registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithPermissions } from '../support/rbac-factory.js';
import { pkce, ProviderBrowser, redirectParameters } from '../provider/provider-browser.js';
import { FakeGitHub, type GitHubEmail, type GitHubPerson } from './fake-github.js';
import { continueWith } from './mock-upstream.js';

const ISSUER = 'https://auth.example.test';
const WEB = 'https://web.example.test/callback';

/**
 * Providers of type `github`: OAuth 2 with GitHub's user and verified-emails APIs in place of an ID
 * token, against a fake GitHub on a loopback port named as the provider's `issuer` (the documented
 * GitHub Enterprise Server base URL). The identity is GitHub's numeric id; the only address used
 * is the primary one, and it counts as verified only when GitHub says so.
 */
describe('signing in with a GitHub provider', () => {
  const fixture = useTestApp({ env: { ISSUER }, smtp: true });
  let app: NestFastifyApplication;
  let db: DataSource;
  const web = { id: 'github-web', secret: '' };
  const github = new FakeGitHub({ id: 'Iv1serviceAtGitHub', secret: 'github-client-secret-value' });

  beforeAll(async () => {
    ({ app, db } = fixture);
    await github.start();
    const { secret } = await app.get(ClientsService).register(
      web.id,
      {
        name: 'Web',
        type: 'confidential',
        redirectUris: [WEB],
        postLogoutRedirectUris: [],
        backchannelLogoutUri: null,
        firstParty: true,
      },
      'admin',
    );
    web.secret = secret ?? '';
    const admin = await callerWithPermissions(app, db, ['settings.view', 'settings.edit']);
    const created = await call(app, 'post', '/api/admin/identity-providers', admin.token, {
      slug: 'github',
      name: 'GitHub',
      type: 'github',
      issuer: github.url,
      client_id: 'Iv1serviceAtGitHub',
      client_secret: 'github-client-secret-value',
      trust_email: true,
    });
    expect(created.status).toBe(201);
    expect(created.body.data.scopes).toEqual([]);
  });
  afterAll(() => github.stop());

  /** The person signs in at the fake GitHub from the web client's sign-in page. */
  async function viaGitHub(person: GitHubPerson) {
    github.person = person;
    const browser = new ProviderBrowser(app);
    const pair = pkce();
    const page = await browser.authorize({
      response_type: 'code',
      client_id: web.id,
      redirect_uri: WEB,
      scope: 'openid email',
      state: 'client-state',
      code_challenge: pair.challenge,
      code_challenge_method: 'S256',
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<button type="submit">Continue with GitHub</button>');
    const back = await continueWith(browser, page, 'github');
    return { back, verifier: pair.verifier, browser };
  }

  /** The web client's code exchanged: its ID token's claims. */
  async function idTokenOf(back: request.Response, verifier: string) {
    expect(back.status).toBe(302);
    const params = redirectParameters(back);
    const res = await request(app.getHttpServer())
      .post('/api/auth/token')
      .type('form')
      .auth(web.id, web.secret)
      .send(
        new URLSearchParams({
          grant_type: 'authorization_code',
          code: params.get('code')!,
          redirect_uri: WEB,
          code_verifier: verifier,
        }).toString(),
      );
    expect(res.status).toBe(200);
    return decodeJwt(res.body.id_token).payload;
  }

  const emailOf = () => `github-${randomUUID()}@example.com`;
  const gitHubPerson = (emails: GitHubEmail[]): GitHubPerson => ({
    id: randomInt(1, 2 ** 40),
    login: `octo-${randomUUID().slice(0, 8)}`,
    name: 'Octo Person',
    emails,
  });
  const identitiesOf = async (userId: string): Promise<{ subject: string; email: string | null }[]> =>
    db.query(`SELECT subject, email FROM upstream_identities WHERE user_id = $1`, [userId]);
  const userByEmail = async (email: string) =>
    (await db.query(`SELECT id, email_verified_at, password_set FROM users WHERE email = $1`, [email]))[0];

  it('signs a new person in with code and PKCE at GitHub: the numeric id is the identity, the primary verified address the account’s', async () => {
    const email = emailOf();
    const someone = gitHubPerson([{ email, primary: true, verified: true }]);
    const from = github.calls.length;
    const { back, verifier } = await viaGitHub(someone);
    const claims = await idTokenOf(back, verifier);
    expect(claims.amr).toEqual(['fed']);
    expect(claims.email).toBe(email);
    const user = await userByEmail(email);
    expect(claims.sub).toBe(user.id);
    expect(user.email_verified_at).not.toBeNull();
    expect(user.password_set).toBe(false);
    expect(await identitiesOf(user.id)).toEqual([{ subject: String(someone.id), email }]);
    expect(github.calls.slice(from)).toEqual([
      'GET /login/oauth/authorize',
      'POST /login/oauth/access_token',
      'GET /api/v3/user',
      'GET /api/v3/user/emails',
    ]);

    // The same GitHub id signs in to the same account, whatever its addresses have become.
    const again = await viaGitHub({ ...someone, emails: [{ email: emailOf(), primary: true, verified: true }] });
    expect((await idTokenOf(again.back, again.verifier)).sub).toBe(user.id);
  });

  it('only the primary address is used: a verified secondary address that an account holds is neither linked nor taken', async () => {
    const holder = await registerUser(app, { email: emailOf() });
    await db.query(`UPDATE users SET email_verified_at = now() WHERE id = $1`, [holder.id]);
    const primary = emailOf();
    const someone = gitHubPerson([
      { email: holder.email, primary: false, verified: true },
      { email: primary, primary: true, verified: true },
    ]);
    const { back, verifier } = await viaGitHub(someone);
    const claims = await idTokenOf(back, verifier);
    expect(claims.email).toBe(primary);
    expect(claims.sub).not.toBe(holder.id);
    expect(await identitiesOf(holder.id)).toEqual([]);
  });

  it('an unverified primary address is never linked automatically, though the provider is trusted and a verified secondary address exists', async () => {
    const holder = await registerUser(app, { email: emailOf() });
    await db.query(`UPDATE users SET email_verified_at = now() WHERE id = $1`, [holder.id]);
    const someone = gitHubPerson([
      { email: emailOf(), primary: false, verified: true },
      { email: holder.email, primary: true, verified: false },
    ]);
    const { back, browser } = await viaGitHub(someone);
    expect(back.status).toBe(200);
    expect(back.text).toContain('An account already uses this address. Sign in to it to link your GitHub identity.');
    expect(back.headers.location).toBeUndefined();
    expect(await identitiesOf(holder.id)).toEqual([]);

    // The holder's own password links it, and from then on the GitHub id signs in to the account.
    expect((await browser.signIn(back, holder.email, holder.password)).status).toBe(302);
    expect(await identitiesOf(holder.id)).toEqual([{ subject: String(someone.id), email: holder.email }]);
    const again = await viaGitHub(someone);
    expect((await idTokenOf(again.back, again.verifier)).sub).toBe(holder.id);
  });

  it('an unverified primary address with no account makes an account whose address stays unverified', async () => {
    const email = emailOf();
    const { back, verifier } = await viaGitHub(gitHubPerson([{ email, primary: true, verified: false }]));
    await idTokenOf(back, verifier);
    expect((await userByEmail(email)).email_verified_at).toBeNull();
  });
});
