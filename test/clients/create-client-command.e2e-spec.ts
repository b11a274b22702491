import request from 'supertest';
import { runCli } from '../support/cli-runner.js';
import { useTestApp } from '../support/fixture.js';
import { callerWithRoles, type Caller } from '../support/rbac-factory.js';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('create-client <id> with the fields of the client registry as flags', () => {
  const fixture = useTestApp();
  let admin: Caller;
  beforeAll(async () => {
    admin = await callerWithRoles(fixture.app, fixture.db, ['admin']);
  });
  const cli = (args: string[]) => runCli(fixture.database.url, args);
  const read = (clientId: string) =>
    request(fixture.app.getHttpServer())
      .get(`/api/admin/clients/${clientId}`)
      .set('authorization', `Bearer ${admin.token}`);
  const token = (clientId: string, secret: string) =>
    request(fixture.app.getHttpServer())
      .post('/api/auth/token')
      .set('authorization', basic(clientId, secret))
      .type('form')
      .send('grant_type=client_credentials');

  it('without flags, makes a confidential service client that keeps client_credentials', async () => {
    const created = await cli(['create-client', 'cli-service']);
    expect(created.code).toBe(0);
    const secret = created.stdout.trim().split('\n').pop()!;
    expect((await token('cli-service', secret)).status).toBe(200);
    expect((await read('cli-service')).body.data).toMatchObject({
      client_id: 'cli-service',
      name: 'cli-service',
      type: 'confidential',
      redirect_uris: [],
      grant_types: ['client_credentials', 'refresh_token'],
      first_party: false,
    });
  });

  it('takes every field as a flag, --redirect-uri and --post-logout-redirect-uri repeatable', async () => {
    const created = await cli([
      'create-client',
      'cli-web',
      '--name',
      'Grafana',
      '--redirect-uri',
      'https://grafana.example.com/login/generic_oauth',
      '--redirect-uri',
      'http://127.0.0.1/callback',
      '--post-logout-redirect-uri',
      'https://grafana.example.com/',
      '--first-party',
      '--backchannel-logout-uri',
      'https://grafana.example.com/backchannel',
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Client cli-web created\. Its secret, shown only now:\n[A-Za-z0-9_-]{43}\n$/);
    expect((await read('cli-web')).body.data).toMatchObject({
      name: 'Grafana',
      type: 'confidential',
      redirect_uris: ['https://grafana.example.com/login/generic_oauth', 'http://127.0.0.1/callback'],
      post_logout_redirect_uris: ['https://grafana.example.com/'],
      grant_types: ['authorization_code', 'refresh_token'],
      first_party: true,
      backchannel_logout_uri: 'https://grafana.example.com/backchannel',
    });
  });

  it('makes a public client with --public, which has no secret', async () => {
    const created = await cli([
      'create-client',
      'cli-native',
      '--public',
      '--redirect-uri',
      'com.example.app:/callback',
    ]);
    expect(created).toMatchObject({
      code: 0,
      stdout: 'Client cli-native created: a public client, which has no secret.\n',
    });
    expect((await read('cli-native')).body.data).toMatchObject({
      type: 'public',
      redirect_uris: ['com.example.app:/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods: ['none'],
    });
  });

  it('takes --grant, repeatable', async () => {
    const created = await cli([
      'create-client',
      'cli-both',
      '--redirect-uri',
      'https://both.example.com/cb',
      '--grant',
      'authorization_code',
      '--grant',
      'client_credentials',
    ]);
    expect(created.code).toBe(0);
    const secret = created.stdout.trim().split('\n').pop()!;
    expect((await read('cli-both')).body.data.grant_types).toEqual(['authorization_code', 'client_credentials']);
    expect((await token('cli-both', secret)).status).toBe(200);
  });

  it('refuses what the admin API refuses, in a line per problem, and stores nothing', async () => {
    for (const args of [
      ['--redirect-uri', 'javascript:alert(1)'],
      ['--redirect-uri', 'http://app.example.com/cb'],
      ['--redirect-uri', 'https://app.example.com/cb#x'],
      ['--public', '--grant', 'client_credentials'],
      ['--grant', 'password'],
      ['--redirect-uri', 'com.example.app:/callback'],
      ['--backchannel-logout-uri', 'ftp://app.example.com/bc'],
    ]) {
      const refused = await cli(['create-client', 'cli-refused', ...args]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.trim()).not.toBe('');
      expect((await read('cli-refused')).status).toBe(404);
    }
    const javascript = await cli(['create-client', 'cli-refused', '--redirect-uri', 'javascript:alert(1)']);
    expect(javascript.stderr).toMatch(/^redirect_uris\.0 must use https/);
  });
});
