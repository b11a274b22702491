import { checkClientFields, clientIdProblem, type ClientFields } from './client-rules.js';

const web: ClientFields = {
  name: 'Web app',
  type: 'confidential',
  redirectUris: ['https://app.example.com/callback'],
  postLogoutRedirectUris: [],
  firstParty: false,
  backchannelLogoutUri: null,
};

describe('checkClientFields', () => {
  it('gives a client that asks for no grant type authorization_code and refresh_token', () => {
    expect(checkClientFields(web)).toEqual({ problems: [], grantTypes: ['authorization_code', 'refresh_token'] });
  });

  it('gives client_credentials to a confidential client that asks for it, without a redirect URI', () => {
    expect(checkClientFields({ ...web, redirectUris: [], grantTypes: ['client_credentials'] })).toEqual({
      problems: [],
      grantTypes: ['client_credentials'],
    });
  });

  it('refuses client_credentials to a public client', () => {
    expect(
      checkClientFields({ ...web, type: 'public', grantTypes: ['authorization_code', 'client_credentials'] }).problems,
    ).toEqual([{ field: 'grant_types', message: 'client_credentials is only for confidential clients' }]);
  });

  it('refuses unknown, repeated or no grant types', () => {
    expect(checkClientFields({ ...web, grantTypes: ['implicit'] }).problems).toEqual([
      {
        field: 'grant_types',
        message: 'grant_types may hold only authorization_code, refresh_token, client_credentials',
      },
    ]);
    expect(checkClientFields({ ...web, grantTypes: ['password'] }).problems).toHaveLength(1);
    expect(checkClientFields({ ...web, grantTypes: ['refresh_token', 'refresh_token'] }).problems).toEqual([
      { field: 'grant_types', message: 'grant_types must not repeat a grant type' },
    ]);
    expect(checkClientFields({ ...web, grantTypes: [] }).problems).toEqual([
      { field: 'grant_types', message: 'grant_types must hold at least one grant type' },
    ]);
  });

  it('wants a redirect URI for authorization_code', () => {
    expect(checkClientFields({ ...web, redirectUris: [] }).problems).toEqual([
      { field: 'redirect_uris', message: 'redirect_uris must hold at least one URI for the authorization_code grant' },
    ]);
  });

  it('names each refused URI by its place in its list', () => {
    const { problems } = checkClientFields({
      ...web,
      redirectUris: ['https://app.example.com/callback', 'javascript:alert(1)'],
      postLogoutRedirectUris: ['https://app.example.com/bye#x'],
      backchannelLogoutUri: 'http://app.example.com/bc',
    });
    expect(problems.map((problem) => problem.field)).toEqual([
      'redirect_uris.1',
      'post_logout_redirect_uris.0',
      'backchannel_logout_uri',
    ]);
    expect(problems[0].message).toMatch(/^redirect_uris\.1 must use https/);
  });

  it('refuses a repeated URI, more than 20, and a blank or long name', () => {
    expect(checkClientFields({ ...web, redirectUris: [web.redirectUris[0], web.redirectUris[0]] }).problems).toEqual([
      { field: 'redirect_uris', message: 'redirect_uris must not repeat a URI' },
    ]);
    const many = Array.from({ length: 21 }, (_, i) => `https://app.example.com/cb${i}`);
    expect(checkClientFields({ ...web, redirectUris: many }).problems).toEqual([
      { field: 'redirect_uris', message: 'redirect_uris must hold at most 20 URIs' },
    ]);
    expect(checkClientFields({ ...web, name: '   ' }).problems).toEqual([
      { field: 'name', message: 'name must be 1 to 100 characters long' },
    ]);
    expect(checkClientFields({ ...web, name: 'x'.repeat(101) }).problems).toHaveLength(1);
  });
});

describe('clientIdProblem', () => {
  it.each(['web', 'com.example.app', 'a_b-c.d', 'x'.repeat(100)])('accepts %s', (clientId) => {
    expect(clientIdProblem(clientId)).toBeNull();
  });

  it.each(['', 'has space', 'slash/id', 'x'.repeat(101), 'é', 'a:b'])('refuses %j', (clientId) => {
    expect(clientIdProblem(clientId)).toBe('client_id must be 1 to 100 letters, digits, dots, dashes or underscores');
  });

  it('refuses an id shaped like a user id, which its service tokens would carry as sub', () => {
    expect(clientIdProblem('3f1c7f3e-9b7a-4d55-8a56-1c0de0c0ffee')).toBe(
      'client_id must not look like a user id (a UUID)',
    );
  });
});
