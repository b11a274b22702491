import type { RelyingParty } from './relying-parties.js';

/** The scopes the provider knows; others are ignored (OpenID Connect Core §3.1.2.1). */
export const SUPPORTED_SCOPES = ['openid', 'profile', 'email', 'phone', 'offline_access'] as const;

/** The parameters of an authorization request the pages carry from step to step. */
export const AUTHORIZATION_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'max_age',
  'login_hint',
  'resource',
] as const;

export type AuthorizationParameters = Partial<Record<(typeof AUTHORIZATION_PARAMETERS)[number], string>>;

/** A valid authorization request of a known client to one of its registered redirect URIs. */
export interface AuthorizationRequest {
  client: RelyingParty;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  nonce: string | undefined;
  codeChallenge: string;
  prompt: { none: boolean; login: boolean; consent: boolean };
  maxAge: number | undefined;
  loginHint: string | undefined;
  resource: string | undefined;
}

/** Refused before the client and its redirect URI are known: a page, never a redirect. */
export class AuthorizationPageError extends Error {
  constructor(readonly description: string) {
    super(description);
  }
}

/** Refused after they are known: back to the redirect URI with `error` (RFC 6749 §4.1.2.1). */
export class AuthorizationRedirectError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

const MAX_LENGTH = 2000;
/** RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PRINTABLE = /^[\x20-\x7e]*$/;

/**
 * The parameters of a query or form: each once, a string; a repeated parameter is refused
 * (RFC 6749 §3.1), as is one too long or with control characters.
 */
export function parametersOf(source: unknown): { parameters: AuthorizationParameters; problem: string | null } {
  const parameters: AuthorizationParameters = {};
  let problem: string | null = null;
  const input = (typeof source === 'object' && source !== null ? source : {}) as Record<string, unknown>;
  for (const name of AUTHORIZATION_PARAMETERS) {
    const value = input[name];
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string') {
      problem ??= `${name} must be given once.`;
      continue;
    }
    if (value.length > MAX_LENGTH || !PRINTABLE.test(value)) {
      problem ??= `${name} is too long or holds characters it may not.`;
      continue;
    }
    parameters[name] = value;
  }
  return { parameters, problem };
}

/**
 * The request, judged in the order RFC 6749 §4.1.2.1 asks: the client and its redirect URI first
 * (a page on failure: the redirect URI cannot be trusted), then everything else (a redirect).
 */
export function judgeAuthorizationRequest(
  parameters: AuthorizationParameters,
  problem: string | null,
  client: RelyingParty | null,
  redirectUriMatches: boolean,
): AuthorizationRequest {
  if (!parameters.client_id || !client) throw new AuthorizationPageError('The application is unknown.');
  if (!parameters.redirect_uri || !redirectUriMatches)
    throw new AuthorizationPageError('The redirect URI is not registered for this application.');
  if (problem) throw new AuthorizationRedirectError('invalid_request', problem);
  if (parameters.response_type !== 'code')
    throw new AuthorizationRedirectError('unsupported_response_type', 'response_type must be code.');
  if (!client.grantTypes.includes('authorization_code'))
    throw new AuthorizationRedirectError(
      'unauthorized_client',
      'This client may not use the authorization code grant.',
    );
  if (parameters.code_challenge === undefined)
    throw new AuthorizationRedirectError('invalid_request', 'code_challenge is required (PKCE with S256).');
  if (parameters.code_challenge_method !== 'S256')
    throw new AuthorizationRedirectError('invalid_request', 'code_challenge_method must be S256.');
  if (!S256_CHALLENGE.test(parameters.code_challenge))
    throw new AuthorizationRedirectError('invalid_request', 'code_challenge must be 43 characters of base64url.');
  const prompts = (parameters.prompt ?? '').split(' ').filter(Boolean);
  if (prompts.some((value) => !['none', 'login', 'consent'].includes(value)))
    throw new AuthorizationRedirectError('invalid_request', 'prompt must be none, login or consent.');
  const prompt = {
    none: prompts.includes('none'),
    login: prompts.includes('login'),
    consent: prompts.includes('consent'),
  };
  if (prompt.none && prompts.length > 1)
    throw new AuthorizationRedirectError('invalid_request', 'prompt=none cannot be combined with another value.');
  let maxAge: number | undefined;
  if (parameters.max_age !== undefined) {
    if (!/^\d{1,9}$/.test(parameters.max_age))
      throw new AuthorizationRedirectError('invalid_request', 'max_age must be a number of seconds.');
    maxAge = Number(parameters.max_age);
  }
  if (parameters.resource !== undefined && !isResource(parameters.resource))
    throw new AuthorizationRedirectError('invalid_target', 'resource must be an absolute URI without a fragment.');
  const requested = (parameters.scope ?? '').split(' ').filter(Boolean);
  const scopes = SUPPORTED_SCOPES.filter((scope) => requested.includes(scope));
  if (scopes.includes('offline_access') && !client.grantTypes.includes('refresh_token')) {
    scopes.splice(scopes.indexOf('offline_access'), 1);
  }
  return {
    client,
    redirectUri: parameters.redirect_uri,
    scopes,
    state: parameters.state,
    nonce: parameters.nonce,
    codeChallenge: parameters.code_challenge,
    prompt,
    maxAge,
    loginHint: parameters.login_hint,
    resource: parameters.resource,
  };
}

function isResource(value: string): boolean {
  try {
    const url = new URL(value);
    return !value.includes('#') && (url.protocol === 'https:' || url.protocol === 'http:');
  } catch {
    return false;
  }
}

/**
 * Where the browser goes with the answer: the redirect URI with the parameters added to its query
 * (RFC 6749 §4.1.2), `iss` always (RFC 9207).
 */
export function redirectWith(redirectUri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) url.searchParams.append(name, value);
  }
  return url.toString();
}
