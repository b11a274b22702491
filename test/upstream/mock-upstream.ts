import { generateKeyPairSync, sign } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';
import type { Response } from 'supertest';
import { formFields, type ProviderBrowser } from '../provider/provider-browser.js';

/** Who the upstream says is signed in there: the claims of the next ID token it issues. */
export interface UpstreamPerson {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

/** A way the next ID token is made wrong, as an attacker or a broken upstream would make it. */
export type Tampering = 'signature' | 'iss' | 'aud' | 'nonce' | 'exp';

/**
 * A real OpenID provider on a loopback port (oauth2-mock-server: discovery, JWKS, authorization
 * code with PKCE S256 checked, nonce carried into the ID token), whose signed-in person and ID-token
 * claims each test scripts. Its authorization endpoint signs the scripted person in at once.
 */
export class MockUpstream {
  private readonly server = new OAuth2Server();
  /** The person the upstream's next sign-in is. */
  person: UpstreamPerson = { sub: 'nobody' };
  tampering: Tampering | null = null;

  async start(): Promise<this> {
    // A key made here (the library's own generator answers an object of another realm under the test runner).
    const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    await this.server.issuer.keys.add(JSON.parse(JSON.stringify({ ...jwk, alg: 'RS256', kid: 'upstream-key' })));
    await this.server.start(0, '127.0.0.1');
    this.server.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
      // The ID token is the one with an audience (the code grant's access token has none here).
      if (!('aud' in token.payload)) return;
      const payload = token.payload;
      payload.sub = this.person.sub;
      for (const claim of ['email', 'email_verified', 'name'] as const) {
        if (this.person[claim] === undefined) delete payload[claim];
        else payload[claim] = this.person[claim];
      }
      if (this.tampering === 'iss') payload.iss = 'https://another-issuer.example';
      if (this.tampering === 'aud') payload.aud = 'another-client';
      if (this.tampering === 'nonce') payload.nonce = 'a-nonce-of-another-request';
      if (this.tampering === 'exp') {
        const now = Math.floor(Date.now() / 1000);
        Object.assign(payload, { iat: now - 7200, nbf: now - 7200, exp: now - 3600 });
      }
    });
    this.server.service.on('beforeResponse', (response: { body: Record<string, unknown> }) => {
      if (this.tampering !== 'signature' || typeof response.body.id_token !== 'string') return;
      // The same claims and key id, signed by a key the upstream's JWKS does not hold.
      response.body.id_token = resign(response.body.id_token);
    });
    return this;
  }

  get issuer(): string {
    return this.server.issuer.url!;
  }

  async stop(): Promise<void> {
    await this.server.stop();
  }
}

/** A key the upstream's JWKS does not hold. */
const FOREIGN_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

/** The same header (key id included) and claims, signed RS256 by the foreign key. */
function resign(token: string): string {
  const [header, payload] = token.split('.');
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), FOREIGN_KEY).toString('base64url');
  return `${header}.${payload}.${signature}`;
}

/**
 * Presses "Continue with <name>" on a sign-in page: the browser goes to the upstream, which signs the
 * scripted person in and sends the browser back. Answers where it is sent back (not yet followed).
 */
export async function pressContinueWith(
  browser: ProviderBrowser,
  page: Response,
  slug: string,
): Promise<UpstreamAnswer> {
  const { action, fields } = formFields(page.text, `/upstream/${slug}`);
  const toUpstream = await browser.post(action, fields);
  if (toUpstream.status !== 302)
    throw new Error(`no redirect to the upstream: ${toUpstream.status} ${toUpstream.text}`);
  return answerAt(toUpstream.headers.location as string);
}

/** Where the upstream sends the browser back from its authorization URL: the callback's path and query. */
export async function answerAt(authorizationUrl: string): Promise<UpstreamAnswer> {
  const atUpstream = await fetch(authorizationUrl, { redirect: 'manual' });
  const back = new URL(atUpstream.headers.get('location')!);
  return { path: back.pathname, query: Object.fromEntries(back.searchParams) };
}

export interface UpstreamAnswer {
  path: string;
  query: Record<string, string>;
}

/** Presses "Continue with <name>" and follows the browser through the upstream back to the service. */
export async function continueWith(browser: ProviderBrowser, page: Response, slug: string): Promise<Response> {
  const answer = await pressContinueWith(browser, page, slug);
  return browser.get(answer.path, answer.query);
}

/** The browser at the upstream's authorization URL, and back at the service's callback. */
export async function followUpstream(browser: ProviderBrowser, authorizationUrl: string): Promise<Response> {
  const answer = await answerAt(authorizationUrl);
  return browser.get(answer.path, answer.query);
}
