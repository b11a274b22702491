import { Injectable, Logger } from '@nestjs/common';
import * as oidc from 'openid-client';
import { emailHasHiddenCharacters, normalizeEmail } from '../common/normalize.js';
import type { UpstreamProviderRow } from './upstream-providers.repository.js';

/** What the service keeps of an upstream's answer: who it says the person is. Never a token. */
export interface UpstreamClaims {
  /** The upstream's `sub` (GitHub: the user's numeric id). */
  subject: string;
  /** Normalised as the service stores addresses; null when it gave none. */
  email: string | null;
  /** `email_verified: true` in the ID token (GitHub: the primary address is verified); a missing claim is false. */
  emailVerified: boolean;
  name: string | null;
}

/** The parameters of one flow's request, and what its answer is checked against. */
export interface FlowChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
}

/** The upstream refused, or its answer failed a check: the reason is logged, never shown. */
export class UpstreamError extends Error {}

const GITHUB = 'https://github.com';
/** How long a discovery document is reused before it is read again. */
const DISCOVERY_CACHE_MS = 10 * 60 * 1000;
const TIMEOUT_SECONDS = 10;

/**
 * The service as a careful client of an upstream (openid-client, by the author of the certified
 * provider, rather than protocol code of its own): authorization code with PKCE S256, `state`,
 * `nonce`; the ID token checked by the library (signature against the upstream's JWKS, `iss`,
 * `aud`, `exp`, `nonce`) and the `iss` of the authorization response (RFC 9207) where the
 * upstream sends one. GitHub is OAuth 2 only: its user and verified-emails APIs stand in for an
 * ID token. No upstream token outlives the call.
 */
@Injectable()
export class UpstreamClient {
  private readonly logger = new Logger('UpstreamClient');
  private readonly discovered = new Map<
    string,
    { issuer: string; at: number; metadata: Promise<oidc.ServerMetadata> }
  >();

  /** Reads an issuer's discovery (the admin API checks a new or changed issuer with it). */
  async discover(issuer: string, clientId: string): Promise<void> {
    await this.discovery(issuer, clientId);
  }

  async authorizationUrl(provider: UpstreamProviderRow, secret: string, checks: FlowChecks): Promise<URL> {
    const config = await this.configuration(provider, secret);
    const parameters: Record<string, string> = {
      redirect_uri: checks.redirectUri,
      scope: scopesOf(provider).join(' '),
      state: checks.state,
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    };
    if (provider.type === 'oidc') parameters.nonce = checks.nonce;
    return oidc.buildAuthorizationUrl(config, parameters);
  }

  /** Exchanges the code of the upstream's answer (`callbackUrl`) and says who the person is. */
  async complete(
    provider: UpstreamProviderRow,
    secret: string,
    callbackUrl: URL,
    checks: FlowChecks,
  ): Promise<UpstreamClaims> {
    const config = await this.configuration(provider, secret);
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(
        config,
        callbackUrl,
        {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          expectedNonce: provider.type === 'oidc' ? checks.nonce : undefined,
          idTokenExpected: provider.type === 'oidc',
        },
        { redirect_uri: checks.redirectUri },
      );
    } catch (error) {
      this.logger.warn(`Upstream ${provider.slug} answer refused: ${describe(error)}`);
      throw new UpstreamError('The upstream answer was refused.');
    }
    if (provider.type === 'github') return this.githubClaims(provider, tokens.access_token);
    const claims = tokens.claims();
    if (!claims || typeof claims.sub !== 'string' || claims.sub.length === 0 || claims.sub.length > 255) {
      throw new UpstreamError('The ID token names nobody.');
    }
    return {
      subject: claims.sub,
      email: emailOf(claims.email),
      emailVerified: claims.email_verified === true,
      name: typeof claims.name === 'string' ? claims.name : null,
    };
  }

  /** GitHub's user (its numeric id is the `sub`) and its primary address, verified or not. */
  private async githubClaims(provider: UpstreamProviderRow, accessToken: string): Promise<UpstreamClaims> {
    const api = githubApi(provider);
    const headers = {
      authorization: `Bearer ${accessToken}`,
      accept: 'application/vnd.github+json',
      'user-agent': 'auth-rbac-service',
    };
    const get = async (path: string): Promise<unknown> => {
      const response = await fetch(`${api}${path}`, { headers, signal: AbortSignal.timeout(TIMEOUT_SECONDS * 1000) });
      if (!response.ok) throw new UpstreamError(`GitHub ${path} answered ${response.status}.`);
      return response.json();
    };
    try {
      const user = (await get('/user')) as { id?: unknown; name?: unknown; login?: unknown };
      const emails = (await get('/user/emails')) as { email?: unknown; primary?: unknown; verified?: unknown }[];
      if (typeof user.id !== 'number' && typeof user.id !== 'string') throw new UpstreamError('GitHub named nobody.');
      const primary = Array.isArray(emails) ? emails.find((entry) => entry.primary === true) : undefined;
      return {
        subject: String(user.id),
        email: emailOf(primary?.email),
        emailVerified: primary?.verified === true,
        name: typeof user.name === 'string' ? user.name : typeof user.login === 'string' ? user.login : null,
      };
    } catch (error) {
      this.logger.warn(`Upstream ${provider.slug} user lookup failed: ${describe(error)}`);
      throw new UpstreamError('The upstream user could not be read.');
    }
  }

  /** Where the provider's authorization endpoint is: the sign-in page's forms go on to it. */
  async authorizationOrigin(provider: UpstreamProviderRow): Promise<string> {
    const metadata = await this.metadata(provider);
    return new URL(metadata.authorization_endpoint ?? '').origin;
  }

  private async configuration(provider: UpstreamProviderRow, secret: string): Promise<oidc.Configuration> {
    const github = provider.type === 'github';
    const config = new oidc.Configuration(
      await this.metadata(provider),
      provider.clientId,
      undefined,
      // GitHub takes the secret in the form; an OpenID provider by HTTP Basic, as every one supports.
      github ? oidc.ClientSecretPost(secret) : oidc.ClientSecretBasic(secret),
    );
    if (isLoopbackHttp(config.serverMetadata().issuer)) oidc.allowInsecureRequests(config);
    // The ID token's signature is checked against the upstream's JWKS too, not only its TLS.
    if (!github) oidc.enableNonRepudiationChecks(config);
    config.timeout = TIMEOUT_SECONDS;
    return config;
  }

  /** The provider's server metadata: GitHub's fixed endpoints, or the issuer's discovery, reused a while. */
  private metadata(provider: UpstreamProviderRow): Promise<oidc.ServerMetadata> {
    if (provider.type === 'github') {
      const base = (provider.issuer ?? GITHUB).replace(/\/$/, '');
      return Promise.resolve({
        issuer: base,
        authorization_endpoint: `${base}/login/oauth/authorize`,
        token_endpoint: `${base}/login/oauth/access_token`,
      });
    }
    const issuer = provider.issuer ?? '';
    const cached = this.discovered.get(provider.id);
    if (cached && cached.issuer === issuer && Date.now() - cached.at < DISCOVERY_CACHE_MS) return cached.metadata;
    const metadata = this.discovery(issuer, provider.clientId).then((config) => config.serverMetadata());
    this.discovered.set(provider.id, { issuer, at: Date.now(), metadata });
    metadata.catch(() => this.discovered.delete(provider.id));
    return metadata;
  }

  private discovery(issuer: string, clientId: string): Promise<oidc.Configuration> {
    const insecure = isLoopbackHttp(issuer);
    return oidc.discovery(new URL(issuer), clientId, undefined, undefined, {
      execute: insecure ? [oidc.allowInsecureRequests] : [],
      timeout: TIMEOUT_SECONDS,
    });
  }
}

/** The scopes asked of the upstream: the provider's own, or its type's default. */
export function scopesOf(provider: Pick<UpstreamProviderRow, 'type' | 'scopes'>): string[] {
  if (provider.scopes.length > 0) {
    return provider.type === 'oidc' && !provider.scopes.includes('openid')
      ? ['openid', ...provider.scopes]
      : provider.scopes;
  }
  return provider.type === 'github' ? ['read:user', 'user:email'] : ['openid', 'email', 'profile'];
}

/** `http` is allowed only on a loopback host (a provider on the same machine); anything else is `https`. */
export function isLoopbackHttp(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  } catch {
    return false;
  }
}

function githubApi(provider: UpstreamProviderRow): string {
  // GitHub Enterprise Server serves its API under /api/v3 of its own host.
  return provider.issuer ? `${provider.issuer.replace(/\/$/, '')}/api/v3` : 'https://api.github.com';
}

/** The address as the service stores addresses; null when there is none it could hold. */
function emailOf(value: unknown): string | null {
  if (typeof value !== 'string' || emailHasHiddenCharacters(value)) return null;
  const email = normalizeEmail(value);
  return email.length > 2 && email.length <= 255 && /^[^@\s]+@[^@\s]+$/.test(email) ? email : null;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 300);
  return 'unknown error';
}
