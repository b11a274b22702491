/**
 * The OpenID provider's figures: a browser that already has a sign-in at the service asking for a
 * code and the client exchanging it (authorize → code → token), one round trip after the other,
 * to be set beside the password sign-in measured the same way in the same run.
 *
 * `node dist/bench/provider.js` (after `npm run build && tsc -p bench/tsconfig.json`) runs this
 * part alone, once and short, against the bench build on a database of its own: a check that the
 * scenario works, not a figure.
 */
import { createHash, randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createDatabase, measure, signIn, startService, timedLoop } from './support.js';

const REDIRECT_URI = 'http://127.0.0.1/callback';

/** `name=value` pairs of a response's Set-Cookie headers. */
function cookiesOf(res: Response): string[] {
  return res.headers.getSetCookie().map((line) => line.split(';', 1)[0]!);
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const unescape = (value: string) =>
  value.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');

/**
 * Registers a first-party public client with the admin's token, signs `email` in through the
 * provider's pages once, and answers one authorization-code round trip of that browser: GET the
 * authorization endpoint with its cookie (a redirect with a code, no page), then the token endpoint.
 */
export async function codeRoundTrip(
  base: string,
  adminToken: string,
  email: string,
  password: string,
): Promise<() => Promise<void>> {
  const clientId = `bench-${randomBytes(4).toString('hex')}`;
  const created = await fetch(`${base}/api/admin/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({
      client_id: clientId,
      name: 'Bench',
      type: 'public',
      redirect_uris: [REDIRECT_URI],
      first_party: true,
    }),
  });
  if (created.status !== 201) throw new Error(`Registering the client failed with ${created.status}`);
  const authorizeUrl = (challenge: string) =>
    `${base}/api/auth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'openid email',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })}`;

  // The browser's one sign-in through the pages.
  const first = pkce();
  const page = await fetch(authorizeUrl(first.challenge), { redirect: 'manual' });
  const jar = cookiesOf(page);
  const html = await page.text();
  const form = /<form method="post" action="([^"]+\/login)">([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`No sign-in form (${page.status})`);
  const fields = new URLSearchParams();
  for (const [, name, value] of form[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields.set(unescape(name!), unescape(value!));
  fields.set('email', email);
  fields.set('password', password);
  const signedIn = await fetch(new URL(unescape(form[1]!), base), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.join('; ') },
    body: fields.toString(),
  });
  if (signedIn.status !== 302) throw new Error(`Signing in through the pages failed with ${signedIn.status}`);
  const cookie = [...jar, ...cookiesOf(signedIn)].join('; ');

  return async () => {
    const pair = pkce();
    const authorized = await fetch(authorizeUrl(pair.challenge), { redirect: 'manual', headers: { cookie } });
    const code = new URL(authorized.headers.get('location') ?? 'x:').searchParams.get('code');
    if (authorized.status !== 302 || !code) throw new Error(`No code: ${authorized.status}`);
    const exchanged = await fetch(`${base}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: pair.verifier,
        client_id: clientId,
      }).toString(),
    });
    if (exchanged.status !== 200) throw new Error(`The code exchange failed with ${exchanged.status}`);
    await exchanged.arrayBuffer();
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const database = await createDatabase(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  const admin = { email: 'admin@bench.example.com', password: `Bench-${randomBytes(12).toString('hex')}` };
  const user = { email: 'user@bench.example.com', password: `Bench-${randomBytes(12).toString('hex')}` };
  const service = await startService('dist/bench/bench-app.js', {
    APP_ENV: 'development',
    DATABASE_URL: database.url,
    SINGLE_INSTANCE: 'true',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_GLOBAL_PER_MINUTE: '100000000',
    SEED_ADMIN_EMAIL: admin.email,
    SEED_ADMIN_PASSWORD: admin.password,
    SEED_USER_EMAIL: user.email,
    SEED_USER_PASSWORD: user.password,
    SERVICE_CLIENTS: 'bench:bench-secret-0123456789-abcdefghij',
    TOKEN_RATE_PER_MINUTE: '100000000',
  });
  try {
    const adminToken = (await signIn(service.base, admin.email, admin.password)).access_token;
    const roundTrip = await codeRoundTrip(service.base, adminToken, user.email, user.password);
    const code = await timedLoop(2, roundTrip);
    const password = await timedLoop(2, async () => {
      await signIn(service.base, user.email, user.password);
    });
    console.log(
      `authorization-code round trips ${code.per_second}/s (p50 ${code.p50_ms} ms), ` +
        `password sign-ins ${password.per_second}/s (p50 ${password.p50_ms} ms): ratio ${(code.per_second / password.per_second).toFixed(2)}`,
    );
    const grants = await measure(
      {
        url: `${service.base}/api/auth/token`,
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from('bench:bench-secret-0123456789-abcdefghij').toString('base64')}`,
        },
        body: 'grant_type=client_credentials',
      },
      { connections: 10, seconds: 2, warmupSeconds: 0 },
    );
    console.log(`client_credentials grants ${grants.requests.average}/s, ${grants.non2xx} not 2xx`);
  } finally {
    await service.stop();
    await database.drop();
  }
}
