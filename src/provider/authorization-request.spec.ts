import {
  AuthorizationPageError,
  AuthorizationRedirectError,
  judgeAuthorizationRequest,
  parametersOf,
  redirectWith,
} from './authorization-request.js';
import { escapeHtml, pageCsp } from './pages.js';
import type { RelyingParty } from './relying-parties.js';

const CLIENT: RelyingParty = {
  clientId: 'web',
  name: 'Web',
  type: 'public',
  firstParty: true,
  grantTypes: ['authorization_code', 'refresh_token'],
  redirectUris: ['https://web.example/cb'],
  postLogoutRedirectUris: [],
  backchannelLogoutUri: null,
};
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

function judge(overrides: Record<string, unknown> = {}, client: RelyingParty | null = CLIENT, matches = true) {
  const { parameters, problem } = parametersOf({
    response_type: 'code',
    client_id: 'web',
    redirect_uri: 'https://web.example/cb',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    scope: 'openid email',
    ...overrides,
  });
  return judgeAuthorizationRequest(parameters, problem, client, matches);
}

function redirectError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof AuthorizationRedirectError) return error.error;
    throw error;
  }
  throw new Error('accepted');
}

describe('judging an authorization request', () => {
  it('accepts a code request with S256 and keeps the known scopes only', () => {
    expect(judge({ scope: 'openid email unknown' }).scopes).toEqual(['openid', 'email']);
  });

  it('refuses an unknown client or an unregistered redirect URI with a page, before anything else', () => {
    expect(() => judge({ response_type: 'token' }, null)).toThrow(AuthorizationPageError);
    expect(() => judge({ response_type: 'token' }, CLIENT, false)).toThrow(AuthorizationPageError);
    expect(() => judge({ redirect_uri: undefined })).toThrow(AuthorizationPageError);
  });

  it.each([
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ code_challenge: undefined }, 'invalid_request'],
    [{ code_challenge_method: 'plain' }, 'invalid_request'],
    [{ code_challenge_method: undefined }, 'invalid_request'],
    [{ code_challenge: 'short' }, 'invalid_request'],
    [{ prompt: 'none login' }, 'invalid_request'],
    [{ prompt: 'select_account' }, 'invalid_request'],
    [{ max_age: '-1' }, 'invalid_request'],
    [{ resource: 'urn:x#frag' }, 'invalid_target'],
    [{ state: ['a', 'b'] }, 'invalid_request'],
  ])('%j → %s at the redirect URI', (overrides, error) => {
    expect(redirectError(() => judge(overrides))).toBe(error);
  });

  it('refuses a client without the authorization code grant', () => {
    expect(redirectError(() => judge({}, { ...CLIENT, grantTypes: ['client_credentials'] }))).toBe(
      'unauthorized_client',
    );
  });

  it('drops offline_access for a client without the refresh grant', () => {
    expect(judge({ scope: 'openid offline_access' }, { ...CLIENT, grantTypes: ['authorization_code'] }).scopes).toEqual(
      ['openid'],
    );
  });

  it('adds the answer to the redirect URI, keeping its own query', () => {
    expect(redirectWith('https://web.example/cb?a=1', { code: 'c', state: undefined, iss: 'https://i' })).toBe(
      'https://web.example/cb?a=1&code=c&iss=https%3A%2F%2Fi',
    );
  });
});

describe('the pages', () => {
  it('escape every character that could leave an attribute or start markup', () => {
    expect(escapeHtml(`"'<>&\`=/`)).toBe('&#34;&#39;&#60;&#62;&#38;&#96;&#61;&#47;');
  });

  it('allow forms to post here and on to the one redirect URI only, and no framing', () => {
    expect(pageCsp('https://web.example:8443/cb?x')).toBe(
      "default-src 'none'; base-uri 'none'; form-action 'self' https://web.example:8443; frame-ancestors 'none'",
    );
    expect(pageCsp('com.example.app:/cb')).toContain("form-action 'self' com.example.app:");
  });
});
