import SwaggerParser from '@apidevtools/swagger-parser';
import { randomUUID } from 'node:crypto';
import request, { type Response } from 'supertest';
import {
  registerUser,
  TEST_PASSWORD,
  uniqueEmail,
  uniqueMobile,
  type RegisteredUser,
} from '../support/auth-factory.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';
import { callerWithPermissions, type Caller } from '../support/rbac-factory.js';
import { ClientsService } from '../../src/clients/index.js';
import { formFields, pkce } from '../provider/provider-browser.js';

interface Operation {
  summary?: string;
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string; properties?: object } }> }>;
}
interface OpenApiDocument {
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
}

const APP_URL = 'https://auth.example.test';
const CLIENT = { id: 'contract-client', secret: 'contract-secret-0123456789-abcdefgh' };
const METRICS_TOKEN = 'contract-scrape-token-0123456789';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** Every operation of the document, as `METHOD /path` (the document's own path templates). */
function operationsOf(document: OpenApiDocument): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods))
      operations.set(`${method.toUpperCase()} ${path}`, operation);
  }
  return operations;
}

/**
 * Whether the operation answers success in the `{success, data}` envelope; the bare answers of
 * the standards it implements (RFC 7662 introspection, and the like) keep their own error shapes.
 */
function enveloped(operation: Operation): boolean {
  return Object.entries(operation.responses).some(
    ([status, response]) =>
      status.startsWith('2') &&
      JSON.stringify(response.content?.['application/json']?.schema ?? {}).includes('"success"'),
  );
}

describe('the OpenAPI document, checked like a linter', () => {
  const fixture = useTestApp({ env: { APP_URL } });
  let document: OpenApiDocument;

  beforeAll(async () => {
    document = (await request(fixture.app.getHttpServer()).get('/docs/openapi.json')).body as OpenApiDocument;
  });

  it('is valid OpenAPI 3 with its references resolved', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('names its server from APP_URL', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: APP_URL })]);
  });

  it('gives every operation a summary, its security (`[]` when public) and at least one 4xx', () => {
    const gaps: string[] = [];
    for (const [name, operation] of operationsOf(document)) {
      if (!operation.summary) gaps.push(`${name}: no summary`);
      if (!Array.isArray(operation.security)) gaps.push(`${name}: no security`);
      if (!Object.keys(operation.responses).some((status) => status.startsWith('4'))) gaps.push(`${name}: no 4xx`);
    }
    expect(gaps).toEqual([]);
    const login = document.paths['/api/auth/login']!.post!;
    expect(login.security).toEqual([]);
    expect(document.paths['/api/auth/me']!.get!.security).toEqual(expect.arrayContaining([{ bearer: [] }]));
  });

  it('describes every error answer of an enveloped /api route with the error envelope', () => {
    const bare: string[] = [];
    for (const [name, operation] of operationsOf(document)) {
      if (!name.includes(' /api/') || !enveloped(operation)) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        if (response.content?.['application/json']?.schema.$ref !== '#/components/schemas/ErrorEnvelope')
          bare.push(`${name} ${status}`);
      }
    }
    expect(bare).toEqual([]);
    expect([...operationsOf(document).values()].filter(enveloped).length).toBeGreaterThan(40);
  });
});

/**
 * The routes each test below calls: each test answers for its own (it calls all of them, and
 * each answer is one the document declares), and the last test checks, from the document alone,
 * that every documented route is in one of these lists.
 */
const TESTED_ROUTES = {
  signIn: [
    'POST /api/auth/register',
    'POST /api/auth/login',
    'POST /api/auth/refresh',
    'GET /api/auth/me',
    'POST /api/auth/forgot-password',
    'POST /api/auth/reset-password',
    'POST /api/auth/logout',
  ],
  mobileCodes: [
    'POST /api/auth/send-otp',
    'POST /api/auth/verify-otp',
    'POST /api/auth/login',
    'POST /api/auth/otp/verify-2fa',
    'POST /api/auth/otp/send-2fa',
  ],
  accountHolder: [
    'GET /api/account',
    'PATCH /api/account',
    'POST /api/account/email',
    'POST /api/account/email/confirm',
    'POST /api/account/email/cancel',
    'POST /api/account/mobile',
    'POST /api/account/mobile/confirm',
    'POST /api/account/reauthenticate',
    'GET /api/account/sessions',
    'DELETE /api/account/sessions/{id}',
    'POST /api/account/sessions/revoke-others',
    'POST /api/account/totp/confirm',
    'POST /api/account/totp',
    'DELETE /api/account/totp',
    'POST /api/account/recovery-codes',
    'POST /api/account/password',
  ],
  administration: [
    'GET /api/admin/roles',
    'POST /api/admin/roles',
    'GET /api/admin/roles/{id}',
    'PUT /api/admin/roles/{id}',
    'DELETE /api/admin/roles/{id}',
    'POST /api/admin/permissions',
    'GET /api/admin/permissions',
    'GET /api/admin/permissions/{id}',
    'PUT /api/admin/permissions/{id}',
    'DELETE /api/admin/permissions/{id}',
    'GET /api/admin/users',
    'POST /api/admin/users',
    'GET /api/admin/users/{id}',
    'PUT /api/admin/users/{id}',
    'POST /api/admin/users/{id}/roles',
    'PUT /api/admin/users/{id}/roles',
    'DELETE /api/admin/users/{id}/roles/{role_id}',
    'GET /api/admin/users/{id}/sessions',
    'DELETE /api/admin/users/{id}/sessions/{session_id}',
    'DELETE /api/admin/users/{id}/sessions',
    'DELETE /api/admin/users/{id}/totp',
    'DELETE /api/admin/users/{id}',
  ],
  operations: [
    'GET /api/admin/settings',
    'PUT /api/admin/settings',
    'POST /api/contents',
    'GET /api/contents',
    'GET /api/contents/{id}',
    'PUT /api/contents/{id}',
    'DELETE /api/contents/{id}',
    'GET /api/admin/audit-events',
    'POST /api/auth/introspect',
    'GET /.well-known/jwks.json',
    'GET /health',
    'GET /health/ready',
    'GET /metrics',
    'GET /reset-password',
    'GET /reset-password/page.js',
    'GET /reset-password/page.css',
    'GET /confirm-email',
    'GET /confirm-email/page.js',
    'GET /cancel-email-change',
    'GET /cancel-email-change/page.js',
  ],
  openId: [
    'GET /.well-known/openid-configuration',
    'GET /.well-known/oauth-authorization-server',
    'POST /api/auth/token',
    'POST /api/auth/revoke',
    'GET /api/auth/userinfo',
    'POST /api/admin/roles',
    'POST /api/admin/clients/{client_id}/roles',
    'GET /api/admin/clients/{client_id}/roles',
    'DELETE /api/admin/clients/{client_id}/roles/{role_id}',
    'DELETE /api/admin/roles/{id}',
  ],
  clients: [
    'POST /api/admin/clients',
    'GET /api/admin/clients',
    'GET /api/admin/clients/{client_id}',
    'PUT /api/admin/clients/{client_id}',
    'POST /api/admin/clients/{client_id}/secret',
    'DELETE /api/admin/clients/{client_id}',
  ],
  eventStream: ['GET /api/auth/permissions', 'GET /api/auth/events'],
  accountLife: [
    'POST /api/auth/verify-email',
    'POST /api/auth/verify-email/resend',
    'GET /verify-email',
    'GET /verify-email/page.js',
    'GET /verify-email/page.css',
    'POST /api/auth/email-code',
    'POST /api/auth/verify-email-code',
    'PUT /api/admin/settings',
    'POST /api/admin/users/{id}/disable',
    'POST /api/auth/login',
    'POST /api/auth/refresh',
    'POST /api/admin/users/{id}/enable',
    'DELETE /api/account',
  ],
  passkeys: [
    'POST /api/account/passkeys/options',
    'POST /api/account/passkeys',
    'GET /api/account/passkeys',
    'PATCH /api/account/passkeys/{id}',
    'DELETE /api/account/passkeys/{id}',
    'POST /api/account/reauthenticate/options',
    'POST /api/auth/passkey/options',
    'POST /api/auth/passkey/verify',
    'GET /account/security',
    'GET /account/security/page.js',
    'GET /account/security/webauthn.js',
    'GET /account/security/page.css',
  ],
  console: ['GET /admin', 'GET /admin/assets/{file}'],
  organizations: [
    'POST /api/organizations',
    'GET /api/organizations',
    'GET /api/admin/organizations',
    'GET /api/organizations/{id}',
    'PATCH /api/organizations/{id}',
    'DELETE /api/organizations/{id}',
    'GET /api/organizations/{id}/members',
    'POST /api/organizations/{id}/members',
    'PUT /api/organizations/{id}/members/{user_id}/roles',
    'DELETE /api/organizations/{id}/members/{user_id}',
    'POST /api/organizations/{id}/invitations',
    'GET /api/organizations/{id}/invitations',
    'DELETE /api/organizations/{id}/invitations/{invitation_id}',
    'GET /api/account/invitations',
    'POST /api/account/invitations/accept',
    'GET /api/admin/organization-roles',
    'POST /api/admin/organization-roles',
    'GET /api/admin/organization-roles/{id}',
    'PUT /api/admin/organization-roles/{id}',
    'DELETE /api/admin/organization-roles/{id}',
    'GET /api/admin/organization-permissions',
    'POST /api/admin/organization-permissions',
    'GET /api/admin/organization-permissions/{id}',
    'PUT /api/admin/organization-permissions/{id}',
    'DELETE /api/admin/organization-permissions/{id}',
    'POST /api/auth/organization-token',
  ],
  openIdProvider: [
    'GET /api/auth/authorize',
    'POST /api/auth/authorize',
    'POST /api/auth/authorize/login',
    'POST /api/auth/authorize/verify',
    'POST /api/auth/authorize/consent',
    'GET /api/auth/authorize/passkey.js',
    'POST /api/auth/authorize/send-sms',
    'GET /api/auth/authorize/end-session',
    'POST /api/auth/authorize/end-session',
    'GET /api/account/applications',
    'DELETE /api/account/applications/{clientId}',
    'POST /api/auth/register-client',
  ],
  upstream: [
    'GET /api/admin/identity-providers',
    'POST /api/admin/identity-providers',
    'GET /api/admin/identity-providers/{slug}',
    'PUT /api/admin/identity-providers/{slug}',
    'DELETE /api/admin/identity-providers/{slug}',
    'POST /api/auth/authorize/upstream/{slug}',
    'GET /api/auth/authorize/upstream/{slug}/callback',
    'GET /api/account/identities',
    'POST /api/account/identities/{id}',
    'DELETE /api/account/identities/{id}',
  ],
} satisfies Record<string, string[]>;

/**
 * Calls every documented route with realistic good and bad inputs, and fails on any status the
 * document does not declare for that route. A new route needs calls here (the last test says
 * which are missing) and its statuses on its handler (`@DocumentRoute`, docs/openapi.md).
 */
describe('the OpenAPI document against the answers of the running service', () => {
  const fixture = useTestApp({
    sms: true,
    smtp: true,
    env: {
      ...SMS_LOGINS,
      APP_URL,
      SERVICE_CLIENTS: `${CLIENT.id}:${CLIENT.secret}`,
      METRICS_TOKEN,
    },
  });
  let document: OpenApiDocument;
  let operations: Map<string, Operation>;

  let admin: Caller;
  let user: RegisteredUser;

  beforeAll(async () => {
    document = (await request(fixture.app.getHttpServer()).get('/docs/openapi.json')).body as OpenApiDocument;
    operations = operationsOf(document);
    const permissions: { name: string }[] = await fixture.db.query('SELECT name FROM permissions');
    admin = await callerWithPermissions(
      fixture.app,
      fixture.db,
      permissions.map((permission) => permission.name),
    );
    user = await registerUser(fixture.app);
  });

  /**
   * A recorder for one test: `hit` sends one request to `route` (`METHOD /document/path`, one of
   * `routes`) at `path` and notes its status; `answeredAsDocumented` checks that each of `routes`
   * was called and that the document declares every status they answered.
   */
  function calls(routes: readonly string[]) {
    const called = new Set<string>();
    const undeclared: string[] = [];
    async function hit(
      route: string,
      path: string,
      options: { token?: string; body?: unknown; basic?: [string, string]; headers?: Record<string, string> } = {},
    ): Promise<Response> {
      if (!routes.includes(route)) throw new Error(`${route} is not among this test's routes`);
      const [method] = route.split(' ');
      const operation = operations.get(route);
      if (!operation) throw new Error(`the document has no ${route}`);
      const req = request(fixture.app.getHttpServer())[method!.toLowerCase() as 'get'](path);
      if (options.token) void req.set('authorization', `Bearer ${options.token}`);
      if (options.basic) void req.auth(...options.basic);
      for (const [name, value] of Object.entries(options.headers ?? {})) void req.set(name, value);
      const res = options.body === undefined ? await req : await req.send(options.body as object);
      called.add(route);
      if (!(String(res.status) in operation.responses)) {
        undeclared.push(`${route} answered ${res.status} ${JSON.stringify(res.body?.error?.code ?? '')}`);
      }
      return res;
    }
    function answeredAsDocumented(): void {
      expect(undeclared).toEqual([]);
      expect(routes.filter((route) => !called.has(route))).toEqual([]);
    }
    return { hit, answeredAsDocumented };
  }

  it('sign-up, sign-in, tokens and passwords', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.signIn);
    const registered = registrationBody();
    await hit('POST /api/auth/register', '/api/auth/register', { body: registered });
    await hit('POST /api/auth/register', '/api/auth/register', { body: registered });
    await hit('POST /api/auth/register', '/api/auth/register', { body: { ...registered, email: 'not-an-email' } });
    await hit('POST /api/auth/register', '/api/auth/register', { body: { ...registrationBody(), role: 'admin' } });

    const signedIn = await hit('POST /api/auth/login', '/api/auth/login', {
      body: { email: user.email, password: TEST_PASSWORD },
    });
    await hit('POST /api/auth/login', '/api/auth/login', { body: { email: user.email, password: 'wrong-password-1' } });
    await hit('POST /api/auth/login', '/api/auth/login', { body: { email: uniqueEmail(), password: TEST_PASSWORD } });
    await hit('POST /api/auth/login', '/api/auth/login', { body: { email: user.email } });
    await hit('POST /api/auth/login', '/api/auth/login', {
      body: '{"email": ',
      headers: { 'content-type': 'application/json' },
    });
    await hit('POST /api/auth/login', '/api/auth/login', {
      body: 'email=a@b.c',
      headers: { 'content-type': 'text/plain' },
    });

    const refreshToken = signedIn.body.data.refresh_token as string;
    await hit('POST /api/auth/refresh', '/api/auth/refresh', { body: { refresh_token: refreshToken } });
    await hit('POST /api/auth/refresh', '/api/auth/refresh', { body: { refresh_token: refreshToken } });
    await hit('POST /api/auth/refresh', '/api/auth/refresh', { body: { refresh_token: 'not-a-token' } });
    await hit('POST /api/auth/refresh', '/api/auth/refresh', { body: {} });
    await hit('POST /api/auth/refresh', '/api/auth/refresh', { body: { refresh_token: 42 } });

    await hit('GET /api/auth/me', '/api/auth/me', { token: user.tokens.access_token });
    await hit('GET /api/auth/me', '/api/auth/me');
    await hit('GET /api/auth/me', '/api/auth/me', { token: refreshToken });

    await hit('POST /api/auth/forgot-password', '/api/auth/forgot-password', { body: { email: user.email } });
    await hit('POST /api/auth/forgot-password', '/api/auth/forgot-password', { body: { email: uniqueEmail() } });
    await hit('POST /api/auth/forgot-password', '/api/auth/forgot-password', { body: { email: 'nope' } });
    const reset = { token: 'a'.repeat(43), password: 'New-Plum-Orbit-77', password_confirmation: 'New-Plum-Orbit-77' };
    await hit('POST /api/auth/reset-password', '/api/auth/reset-password', { body: reset });
    await hit('POST /api/auth/reset-password', '/api/auth/reset-password', {
      body: { ...reset, password_confirmation: 'other' },
    });

    const leaving = await registerUser(fixture.app);
    await hit('POST /api/auth/logout', '/api/auth/logout', { token: leaving.tokens.access_token, body: {} });
    await hit('POST /api/auth/logout', '/api/auth/logout', { token: leaving.tokens.access_token, body: {} });
    await hit('POST /api/auth/logout', '/api/auth/logout', { body: {} });

    answeredAsDocumented();
  });

  it('mobile codes and the second factor', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.mobileCodes);
    const mobile = uniqueMobile();
    await registerUser(fixture.app, { mobile });
    await hit('POST /api/auth/send-otp', '/api/auth/send-otp', { body: { mobile } });
    const code = await fixture.sms.codeFor(mobile);
    await hit('POST /api/auth/verify-otp', '/api/auth/verify-otp', {
      body: { mobile, otp: '000000' === code ? '111111' : '000000' },
    });
    await hit('POST /api/auth/verify-otp', '/api/auth/verify-otp', { body: { mobile, otp: code } });
    await hit('POST /api/auth/verify-otp', '/api/auth/verify-otp', { body: { mobile, otp: code } });
    await hit('POST /api/auth/verify-otp', '/api/auth/verify-otp', { body: { mobile, otp: 'abc' } });
    await hit('POST /api/auth/send-otp', '/api/auth/send-otp', { body: { mobile: 'not a mobile' } });
    await hit('POST /api/auth/send-otp', '/api/auth/send-otp', { body: { mobile: uniqueMobile() } });

    // An administrator with a mobile gets the SMS second factor.
    const adminMobile = uniqueMobile();
    const privileged = await registerUser(fixture.app, { mobile: adminMobile });
    await fixture.db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = 'admin'`, [
      privileged.id,
    ]);
    const challenge = await hit('POST /api/auth/login', '/api/auth/login', {
      body: { mobile: adminMobile, password: TEST_PASSWORD },
    });
    const tempToken = challenge.body.data.temp_token as string;
    const smsCode = await fixture.sms.codeFor(adminMobile);
    const verify = (body: unknown) => hit('POST /api/auth/otp/verify-2fa', '/api/auth/otp/verify-2fa', { body });
    await verify({ temp_token: tempToken, code: smsCode === '000000' ? '111111' : '000000', method: 'sms' });
    await verify({ temp_token: tempToken, code: smsCode, method: 'sms' });
    await verify({ temp_token: tempToken, code: smsCode, method: 'sms' });
    await verify({ temp_token: 'not-a-token', code: '123456' });
    await verify({ temp_token: tempToken, code: 'ABCD-EFGH' });
    await verify({ temp_token: tempToken, code: '123456', method: 'email' });
    await verify({});

    // Another code texted on request: three per temp token, then 429.
    const again = await hit('POST /api/auth/login', '/api/auth/login', {
      body: { mobile: adminMobile, password: TEST_PASSWORD },
    });
    const send = (body: unknown) => hit('POST /api/auth/otp/send-2fa', '/api/auth/otp/send-2fa', { body });
    for (let i = 0; i < 4; i++) await send({ temp_token: again.body.data.temp_token });
    await send({ temp_token: 'not-a-token' });
    await send({});

    answeredAsDocumented();
  });

  it('the account holder', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.accountHolder);
    const holder = await registerUser(fixture.app, { mobile: uniqueMobile() });
    const token = holder.tokens.access_token;
    await hit('GET /api/account', '/api/account', { token });
    await hit('GET /api/account', '/api/account');
    await hit('PATCH /api/account', '/api/account', { token, body: { name: 'Renamed Person' } });
    await hit('PATCH /api/account', '/api/account', { token, body: { name: 'x', is_admin: true } });
    await hit('POST /api/account/email', '/api/account/email', {
      token,
      body: { email: uniqueEmail() },
    });
    await hit('POST /api/account/email', '/api/account/email', { token, body: { email: user.email } });
    await hit('POST /api/account/email', '/api/account/email', { token, body: { email: 'nope' } });
    await hit('POST /api/account/email/confirm', '/api/account/email/confirm', { body: { token: 'a'.repeat(43) } });
    await hit('POST /api/account/email/confirm', '/api/account/email/confirm', { body: {} });
    await hit('POST /api/account/email/cancel', '/api/account/email/cancel', { body: { token: 'a'.repeat(43) } });
    await hit('POST /api/account/email/cancel', '/api/account/email/cancel', { body: {} });
    await hit('POST /api/account/mobile', '/api/account/mobile', {
      token,
      body: { mobile: uniqueMobile() },
    });
    await hit('POST /api/account/mobile', '/api/account/mobile', { token, body: { mobile: 'x' } });
    await hit('POST /api/account/mobile/confirm', '/api/account/mobile/confirm', { token, body: { code: '000000' } });
    await hit('POST /api/account/mobile/confirm', '/api/account/mobile/confirm', { token, body: { code: 'abc' } });

    await hit('POST /api/account/reauthenticate', '/api/account/reauthenticate', {
      token,
      body: { password: TEST_PASSWORD },
    });
    await hit('POST /api/account/reauthenticate', '/api/account/reauthenticate', {
      token,
      body: { password: 'wrong-password-1' },
    });
    await hit('POST /api/account/reauthenticate', '/api/account/reauthenticate', {
      token,
      body: { method: 'totp', code: '000000' },
    });
    await hit('POST /api/account/reauthenticate', '/api/account/reauthenticate', { token, body: { method: 'x' } });
    await hit('POST /api/account/reauthenticate', '/api/account/reauthenticate', { body: { password: TEST_PASSWORD } });
    await hit('GET /api/account/sessions', '/api/account/sessions', { token });
    await hit('GET /api/account/sessions', '/api/account/sessions');
    await hit('DELETE /api/account/sessions/{id}', `/api/account/sessions/${UNKNOWN_ID}`, { token });
    await hit('DELETE /api/account/sessions/{id}', '/api/account/sessions/not-a-uuid', { token });
    await hit('POST /api/account/sessions/revoke-others', '/api/account/sessions/revoke-others', { token, body: {} });

    await hit('POST /api/account/totp/confirm', '/api/account/totp/confirm', { token, body: { code: '000000' } });
    await hit('POST /api/account/totp', '/api/account/totp', { token, body: {} });
    await hit('POST /api/account/recovery-codes', '/api/account/recovery-codes', { token, body: {} });
    await hit('POST /api/account/totp/confirm', '/api/account/totp/confirm', { token, body: { code: '000000' } });
    await hit('POST /api/account/totp/confirm', '/api/account/totp/confirm', { token, body: { code: 'x' } });
    await hit('DELETE /api/account/totp', '/api/account/totp', { token, body: { password: TEST_PASSWORD } });
    await hit('DELETE /api/account/totp', '/api/account/totp', { token, body: { password: 'wrong-password-1' } });

    await hit('POST /api/account/password', '/api/account/password', {
      token,
      body: {
        current_password: 'wrong-password-1',
        password: 'New-Plum-Orbit-77',
        password_confirmation: 'New-Plum-Orbit-77',
      },
    });
    await hit('POST /api/account/password', '/api/account/password', {
      token,
      body: { current_password: TEST_PASSWORD, password: 'short', password_confirmation: 'short' },
    });
    await hit('POST /api/account/password', '/api/account/password', {
      token,
      body: {
        current_password: TEST_PASSWORD,
        password: 'New-Plum-Orbit-77',
        password_confirmation: 'New-Plum-Orbit-77',
      },
    });

    answeredAsDocumented();
  });

  it('roles, permissions, users and their roles and sessions', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.administration);
    const token = admin.token;
    const weak = user.tokens.access_token;
    await hit('GET /api/admin/roles', '/api/admin/roles', { token });
    await hit('GET /api/admin/roles', '/api/admin/roles', { token: weak });
    await hit('GET /api/admin/roles', '/api/admin/roles');
    const roleName = `editor-${randomUUID().slice(0, 8)}`;
    const role = await hit('POST /api/admin/roles', '/api/admin/roles', { token, body: { name: roleName } });
    await hit('POST /api/admin/roles', '/api/admin/roles', { token, body: { name: roleName } });
    await hit('POST /api/admin/roles', '/api/admin/roles', { token, body: { name: '' } });
    await hit('POST /api/admin/roles', '/api/admin/roles', { token: weak, body: { name: 'x-role' } });
    await hit('POST /api/admin/roles', '/api/admin/roles', {
      token,
      body: { name: `r-${randomUUID().slice(0, 8)}`, permission_ids: [UNKNOWN_ID] },
    });
    const roleId = role.body.data.id as string;
    await hit('GET /api/admin/roles/{id}', `/api/admin/roles/${roleId}`, { token });
    await hit('GET /api/admin/roles/{id}', `/api/admin/roles/${UNKNOWN_ID}`, { token });
    await hit('GET /api/admin/roles/{id}', '/api/admin/roles/not-a-uuid', { token });
    await hit('PUT /api/admin/roles/{id}', `/api/admin/roles/${roleId}`, { token, body: { description: 'Edits' } });
    await hit('PUT /api/admin/roles/{id}', `/api/admin/roles/${roleId}`, { token, body: { name: 'admin' } });
    await hit('PUT /api/admin/roles/{id}', `/api/admin/roles/${UNKNOWN_ID}`, { token, body: { description: 'x' } });
    const adminRole = (await fixture.db.query(`SELECT id FROM roles WHERE name = 'admin'`))[0].id as string;
    await hit('PUT /api/admin/roles/{id}', `/api/admin/roles/${adminRole}`, { token, body: { name: 'boss' } });
    await hit('DELETE /api/admin/roles/{id}', `/api/admin/roles/${adminRole}`, { token });

    const permissionName = `reports.x${randomUUID().slice(0, 8)}`;
    const permission = await hit('POST /api/admin/permissions', '/api/admin/permissions', {
      token,
      body: { name: permissionName },
    });
    await hit('POST /api/admin/permissions', '/api/admin/permissions', { token, body: { name: permissionName } });
    await hit('POST /api/admin/permissions', '/api/admin/permissions', { token, body: { name: 'no dots' } });
    if (permission.status !== 201) throw new Error(JSON.stringify(permission.body));
    const permissionId = permission.body.data.id as string;
    await hit('GET /api/admin/permissions', '/api/admin/permissions', { token });
    await hit('GET /api/admin/permissions/{id}', `/api/admin/permissions/${permissionId}`, { token });
    await hit('GET /api/admin/permissions/{id}', `/api/admin/permissions/${UNKNOWN_ID}`, { token });
    await hit('PUT /api/admin/permissions/{id}', `/api/admin/permissions/${permissionId}`, {
      token,
      body: { description: 'Reads reports' },
    });
    await hit('PUT /api/admin/permissions/{id}', `/api/admin/permissions/${permissionId}`, {
      token,
      body: { name: 'users.view' },
    });
    await hit('PUT /api/admin/permissions/{id}', `/api/admin/permissions/${UNKNOWN_ID}`, { token, body: {} });
    const system = (await fixture.db.query(`SELECT id FROM permissions WHERE name = 'users.view'`))[0].id as string;
    await hit('DELETE /api/admin/permissions/{id}', `/api/admin/permissions/${system}`, { token });
    await hit('DELETE /api/admin/permissions/{id}', `/api/admin/permissions/${permissionId}`, { token });
    await hit('DELETE /api/admin/permissions/{id}', `/api/admin/permissions/${permissionId}`, { token });

    await hit('GET /api/admin/users', '/api/admin/users?page=1&limit=5&search=example', { token });
    await hit('GET /api/admin/users', '/api/admin/users?page=0', { token });
    await hit('GET /api/admin/users', '/api/admin/users', { token: weak });
    const newUser = () => ({ name: 'Made By Admin', email: uniqueEmail(), password: TEST_PASSWORD });
    const created = await hit('POST /api/admin/users', '/api/admin/users', { token, body: newUser() });
    if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    await hit('POST /api/admin/users', '/api/admin/users', { token, body: { ...newUser(), email: user.email } });
    await hit('POST /api/admin/users', '/api/admin/users', { token, body: { email: 'x' } });
    const userId = created.body.data.id as string;
    await hit('GET /api/admin/users/{id}', `/api/admin/users/${userId}`, { token });
    await hit('GET /api/admin/users/{id}', `/api/admin/users/${UNKNOWN_ID}`, { token });
    await hit('PUT /api/admin/users/{id}', `/api/admin/users/${userId}`, { token, body: { name: 'Changed' } });
    await hit('PUT /api/admin/users/{id}', `/api/admin/users/${userId}`, { token, body: { email: user.email } });
    await hit('PUT /api/admin/users/{id}', `/api/admin/users/${UNKNOWN_ID}`, { token, body: { name: 'x' } });
    await hit('PUT /api/admin/users/{id}', `/api/admin/users/${userId}`, { token: weak, body: { name: 'x' } });
    await hit('POST /api/admin/users/{id}/roles', `/api/admin/users/${userId}/roles`, {
      token,
      body: { role_ids: [roleId] },
    });
    await hit('POST /api/admin/users/{id}/roles', `/api/admin/users/${userId}/roles`, {
      token,
      body: { role_ids: [UNKNOWN_ID] },
    });
    await hit('POST /api/admin/users/{id}/roles', `/api/admin/users/${UNKNOWN_ID}/roles`, {
      token,
      body: { role_ids: [roleId] },
    });
    await hit('PUT /api/admin/users/{id}/roles', `/api/admin/users/${userId}/roles`, { token, body: { role_ids: [] } });
    await hit('PUT /api/admin/users/{id}/roles', `/api/admin/users/${userId}/roles`, {
      token,
      body: { role_ids: 'x' },
    });
    await hit('DELETE /api/admin/users/{id}/roles/{role_id}', `/api/admin/users/${userId}/roles/${roleId}`, { token });
    await hit('DELETE /api/admin/users/{id}/roles/{role_id}', `/api/admin/users/${UNKNOWN_ID}/roles/${roleId}`, {
      token,
    });

    await hit('GET /api/admin/users/{id}/sessions', `/api/admin/users/${user.id}/sessions`, { token });
    await hit('GET /api/admin/users/{id}/sessions', `/api/admin/users/${UNKNOWN_ID}/sessions`, { token });
    await hit(
      'DELETE /api/admin/users/{id}/sessions/{session_id}',
      `/api/admin/users/${user.id}/sessions/${UNKNOWN_ID}`,
      {
        token,
      },
    );
    await hit('DELETE /api/admin/users/{id}/sessions', `/api/admin/users/${userId}/sessions`, { token });
    await hit('DELETE /api/admin/users/{id}/sessions', `/api/admin/users/${UNKNOWN_ID}/sessions`, { token });
    await hit('DELETE /api/admin/users/{id}/totp', `/api/admin/users/${userId}/totp`, { token });
    await hit('DELETE /api/admin/users/{id}/totp', `/api/admin/users/${UNKNOWN_ID}/totp`, { token });

    await hit('DELETE /api/admin/users/{id}', `/api/admin/users/${userId}`, { token });
    await hit('DELETE /api/admin/users/{id}', `/api/admin/users/${userId}`, { token });
    await hit('DELETE /api/admin/roles/{id}', `/api/admin/roles/${roleId}`, { token });
    await hit('DELETE /api/admin/roles/{id}', `/api/admin/roles/${roleId}`, { token });

    answeredAsDocumented();
  });

  it('settings, contents, audit, introspection, keys, health, metrics and the reset page', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.operations);
    const token = admin.token;
    await hit('GET /api/admin/settings', '/api/admin/settings', { token });
    await hit('GET /api/admin/settings', '/api/admin/settings', { token: user.tokens.access_token });
    await hit('PUT /api/admin/settings', '/api/admin/settings', { token, body: { mobile_otp: true } });
    await hit('PUT /api/admin/settings', '/api/admin/settings', { token, body: { mobile_otp: 'yes' } });

    const content = await hit('POST /api/contents', '/api/contents', {
      token,
      body: { title: 'Hello', body: 'World' },
    });
    await hit('POST /api/contents', '/api/contents', { token, body: { title: '' } });
    await hit('GET /api/contents', '/api/contents?page=1&limit=10', { token });
    await hit('GET /api/contents', '/api/contents', { token: user.tokens.access_token });
    const contentId = content.body.data.id as string;
    await hit('GET /api/contents/{id}', `/api/contents/${contentId}`, { token });
    await hit('GET /api/contents/{id}', `/api/contents/${UNKNOWN_ID}`, { token });
    await hit('PUT /api/contents/{id}', `/api/contents/${contentId}`, { token, body: { title: 'Hi' } });
    await hit('PUT /api/contents/{id}', `/api/contents/${UNKNOWN_ID}`, { token, body: { title: 'Hi' } });
    await hit('DELETE /api/contents/{id}', `/api/contents/${contentId}`, { token });
    await hit('DELETE /api/contents/{id}', `/api/contents/${contentId}`, { token });

    await hit('GET /api/admin/audit-events', '/api/admin/audit-events?page=1&limit=5', { token });
    await hit('GET /api/admin/audit-events', '/api/admin/audit-events?limit=100000', { token });

    const basic: [string, string] = [CLIENT.id, CLIENT.secret];
    await hit('POST /api/auth/introspect', '/api/auth/introspect', { basic, body: { token: admin.token } });
    await hit('POST /api/auth/introspect', '/api/auth/introspect', { basic, body: { token: 'nonsense' } });
    await hit('POST /api/auth/introspect', '/api/auth/introspect', { body: { token: admin.token } });
    await hit('POST /api/auth/introspect', '/api/auth/introspect', { basic: [CLIENT.id, 'wrong'], body: {} });

    await hit('GET /.well-known/jwks.json', '/.well-known/jwks.json');
    await hit('GET /health', '/health');
    await hit('GET /health/ready', '/health/ready');
    await hit('GET /metrics', '/metrics', { token: METRICS_TOKEN });
    await hit('GET /metrics', '/metrics');
    await hit('GET /reset-password', '/reset-password?token=abc');
    await hit('GET /reset-password/page.js', '/reset-password/page.js');
    await hit('GET /reset-password/page.css', '/reset-password/page.css');
    await hit('GET /confirm-email', '/confirm-email?token=abc');
    await hit('GET /confirm-email/page.js', '/confirm-email/page.js');
    await hit('GET /cancel-email-change', '/cancel-email-change?token=abc');
    await hit('GET /cancel-email-change/page.js', '/cancel-email-change/page.js');

    answeredAsDocumented();
  });

  it('OpenID discovery, the token, revocation and userinfo endpoints, and the roles of clients', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.openId);
    await hit('GET /.well-known/openid-configuration', '/.well-known/openid-configuration');
    await hit('GET /.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server');

    const basic: [string, string] = [CLIENT.id, CLIENT.secret];
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const issued = await hit('POST /api/auth/token', '/api/auth/token', {
      basic,
      body: 'grant_type=client_credentials',
      headers: form,
    });
    await hit('POST /api/auth/token', '/api/auth/token', {
      basic: [CLIENT.id, 'wrong'],
      body: 'grant_type=client_credentials',
      headers: form,
    });
    await hit('POST /api/auth/token', '/api/auth/token', { body: 'grant_type=client_credentials', headers: form });
    await hit('POST /api/auth/token', '/api/auth/token', { basic, body: 'grant_type=password', headers: form });
    await hit('POST /api/auth/token', '/api/auth/token', { basic, body: '', headers: form });
    await hit('POST /api/auth/token', '/api/auth/token', {
      basic,
      body: 'grant_type=refresh_token&refresh_token=not-a-token',
      headers: form,
    });
    await hit('POST /api/auth/token', '/api/auth/token', { basic, body: { grant_type: 'client_credentials' } });

    const serviceToken = issued.body.access_token as string;
    await hit('POST /api/auth/revoke', '/api/auth/revoke', { basic, body: `token=${serviceToken}`, headers: form });
    await hit('POST /api/auth/revoke', '/api/auth/revoke', { basic, body: 'token=nonsense', headers: form });
    await hit('POST /api/auth/revoke', '/api/auth/revoke', { basic, body: '', headers: form });
    await hit('POST /api/auth/revoke', '/api/auth/revoke', { body: 'token=nonsense', headers: form });

    await hit('GET /api/auth/userinfo', '/api/auth/userinfo', { token: user.tokens.access_token });
    await hit('GET /api/auth/userinfo', '/api/auth/userinfo');
    await hit('GET /api/auth/userinfo', '/api/auth/userinfo', { token: 'not-a-token' });

    const token = admin.token;
    const roleName = `client-${randomUUID().slice(0, 8)}`;
    const role = await hit('POST /api/admin/roles', '/api/admin/roles', { token, body: { name: roleName } });
    const roleId = role.body.data.id as string;
    const clientRoles = `/api/admin/clients/${CLIENT.id}/roles`;
    await hit('POST /api/admin/clients/{client_id}/roles', clientRoles, { token, body: { role_ids: [roleId] } });
    await hit('POST /api/admin/clients/{client_id}/roles', clientRoles, { token, body: { role_ids: [UNKNOWN_ID] } });
    await hit('POST /api/admin/clients/{client_id}/roles', clientRoles, { token, body: { role_ids: 'x' } });
    await hit('POST /api/admin/clients/{client_id}/roles', '/api/admin/clients/no-such-client/roles', {
      token,
      body: { role_ids: [roleId] },
    });
    await hit('POST /api/admin/clients/{client_id}/roles', clientRoles, {
      token: user.tokens.access_token,
      body: { role_ids: [roleId] },
    });
    await hit('GET /api/admin/clients/{client_id}/roles', clientRoles, { token });
    await hit('GET /api/admin/clients/{client_id}/roles', '/api/admin/clients/no-such-client/roles', { token });
    await hit('GET /api/admin/clients/{client_id}/roles', clientRoles, { token: user.tokens.access_token });
    await hit('GET /api/admin/clients/{client_id}/roles', clientRoles);
    await hit('DELETE /api/admin/clients/{client_id}/roles/{role_id}', `${clientRoles}/${roleId}`, { token });
    await hit('DELETE /api/admin/clients/{client_id}/roles/{role_id}', `${clientRoles}/${roleId}`, { token });
    await hit('DELETE /api/admin/clients/{client_id}/roles/{role_id}', `${clientRoles}/not-a-uuid`, { token });
    await hit('DELETE /api/admin/clients/{client_id}/roles/{role_id}', `${clientRoles}/${UNKNOWN_ID}`, { token });
    await hit(
      'DELETE /api/admin/clients/{client_id}/roles/{role_id}',
      `/api/admin/clients/no-such-client/roles/${roleId}`,
      { token },
    );
    await hit('DELETE /api/admin/roles/{id}', `/api/admin/roles/${roleId}`, { token });

    answeredAsDocumented();
  });

  it('the client registry', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.clients);
    const token = admin.token;
    const clientId = `app-${randomUUID().slice(0, 8)}`;
    const body = {
      client_id: clientId,
      name: 'App',
      type: 'confidential',
      redirect_uris: ['https://app.example.com/cb'],
    };
    await hit('POST /api/admin/clients', '/api/admin/clients', { token, body });
    await hit('POST /api/admin/clients', '/api/admin/clients', { token, body });
    await hit('POST /api/admin/clients', '/api/admin/clients', {
      token,
      body: { ...body, client_id: undefined, redirect_uris: ['javascript:alert(1)'] },
    });
    await hit('POST /api/admin/clients', '/api/admin/clients', { token: user.tokens.access_token, body });
    await hit('POST /api/admin/clients', '/api/admin/clients', { body });
    await hit('GET /api/admin/clients', '/api/admin/clients', { token });
    await hit('GET /api/admin/clients', '/api/admin/clients?limit=0', { token });
    await hit('GET /api/admin/clients', '/api/admin/clients', { token: user.tokens.access_token });
    const one = `/api/admin/clients/${clientId}`;
    await hit('GET /api/admin/clients/{client_id}', one, { token });
    await hit('GET /api/admin/clients/{client_id}', '/api/admin/clients/no-such-client', { token });
    await hit('GET /api/admin/clients/{client_id}', one, { token: user.tokens.access_token });
    await hit('PUT /api/admin/clients/{client_id}', one, { token, body: { name: 'Renamed' } });
    await hit('PUT /api/admin/clients/{client_id}', one, { token, body: { redirect_uris: ['http://evil.example/'] } });
    await hit('PUT /api/admin/clients/{client_id}', '/api/admin/clients/no-such-client', {
      token,
      body: { name: 'x' },
    });
    await hit('PUT /api/admin/clients/{client_id}', one, { token: user.tokens.access_token, body: { name: 'x' } });
    await hit('POST /api/admin/clients/{client_id}/secret', `${one}/secret`, { token });
    await hit('POST /api/admin/clients/{client_id}/secret', '/api/admin/clients/no-such-client/secret', { token });
    await hit('POST /api/admin/clients/{client_id}/secret', `${one}/secret`, { token: user.tokens.access_token });
    await hit('DELETE /api/admin/clients/{client_id}', one, { token: user.tokens.access_token });
    await hit('DELETE /api/admin/clients/{client_id}', one, { token });
    await hit('DELETE /api/admin/clients/{client_id}', one, { token });

    answeredAsDocumented();
  });

  it('the security event stream and the permission names, for service clients', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.eventStream);
    const basic: [string, string] = [CLIENT.id, CLIENT.secret];
    await hit('GET /api/auth/permissions', '/api/auth/permissions', { basic });
    await hit('GET /api/auth/permissions', '/api/auth/permissions', { basic: [CLIENT.id, 'wrong'] });
    await hit('GET /api/auth/permissions', '/api/auth/permissions');
    await hit('GET /api/auth/permissions', '/api/auth/permissions', { token: user.tokens.access_token });
    // The stream stays open once it answers: only refusals here.
    await hit('GET /api/auth/events', '/api/auth/events', { basic: [CLIENT.id, 'wrong'] });
    await hit('GET /api/auth/events', '/api/auth/events');
    await hit('GET /api/auth/events', '/api/auth/events', { token: user.tokens.access_token });

    answeredAsDocumented();
  });

  it('verified emails, sign-in by email code, disabled accounts and deleting an account', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.accountLife);
    await hit('POST /api/auth/verify-email', '/api/auth/verify-email', { body: { token: 'a'.repeat(43) } });
    await hit('POST /api/auth/verify-email', '/api/auth/verify-email', { body: {} });
    await hit('POST /api/auth/verify-email/resend', '/api/auth/verify-email/resend', { body: { email: user.email } });
    await hit('POST /api/auth/verify-email/resend', '/api/auth/verify-email/resend', {
      body: { email: uniqueEmail() },
    });
    await hit('POST /api/auth/verify-email/resend', '/api/auth/verify-email/resend', { body: { email: 'nope' } });
    await hit('GET /verify-email', '/verify-email?token=abc');
    await hit('GET /verify-email/page.js', '/verify-email/page.js');
    await hit('GET /verify-email/page.css', '/verify-email/page.css');

    // Sign-in by email code is off by default (403), then on.
    const coded = await registerUser(fixture.app);
    await hit('POST /api/auth/email-code', '/api/auth/email-code', { body: { email: coded.email } });
    await hit('POST /api/auth/verify-email-code', '/api/auth/verify-email-code', {
      body: { email: coded.email, code: '123456' },
    });
    await hit('PUT /api/admin/settings', '/api/admin/settings', { token: admin.token, body: { email_code: true } });
    await hit('POST /api/auth/email-code', '/api/auth/email-code', { body: { email: coded.email } });
    const mailed = (await fixture.smtp.waitForMail(coded.email)).text.match(/\b\d{6}\b/)?.[0] ?? '000000';
    await hit('POST /api/auth/email-code', '/api/auth/email-code', { body: { email: uniqueEmail() } });
    await hit('POST /api/auth/email-code', '/api/auth/email-code', { body: { email: 'nope' } });
    await hit('POST /api/auth/verify-email-code', '/api/auth/verify-email-code', {
      body: { email: coded.email, code: mailed === '000000' ? '111111' : '000000' },
    });
    await hit('POST /api/auth/verify-email-code', '/api/auth/verify-email-code', {
      body: { email: coded.email, code: mailed },
    });
    await hit('POST /api/auth/verify-email-code', '/api/auth/verify-email-code', {
      body: { email: uniqueEmail(), code: '123456' },
    });
    await hit('POST /api/auth/verify-email-code', '/api/auth/verify-email-code', {
      body: { email: coded.email, code: 'abc' },
    });
    await hit('PUT /api/admin/settings', '/api/admin/settings', { token: admin.token, body: { email_code: false } });

    const token = admin.token;
    const target = await registerUser(fixture.app);
    await hit('POST /api/admin/users/{id}/disable', `/api/admin/users/${target.id}/disable`, {
      token,
      body: { reason: 'on leave' },
    });
    await hit('POST /api/admin/users/{id}/disable', `/api/admin/users/${target.id}/disable`, { token, body: {} });
    await hit('POST /api/admin/users/{id}/disable', `/api/admin/users/${UNKNOWN_ID}/disable`, { token, body: {} });
    await hit('POST /api/admin/users/{id}/disable', `/api/admin/users/${target.id}/disable`, {
      token,
      body: { until: 'tomorrow' },
    });
    await hit('POST /api/admin/users/{id}/disable', `/api/admin/users/${target.id}/disable`, {
      token: user.tokens.access_token,
      body: {},
    });
    await hit('POST /api/auth/login', '/api/auth/login', { body: { email: target.email, password: TEST_PASSWORD } });
    await hit('POST /api/auth/refresh', '/api/auth/refresh', { body: { refresh_token: target.tokens.refresh_token } });
    await hit('POST /api/admin/users/{id}/enable', `/api/admin/users/${target.id}/enable`, { token, body: {} });
    await hit('POST /api/admin/users/{id}/enable', `/api/admin/users/${target.id}/enable`, { token, body: {} });
    await hit('POST /api/admin/users/{id}/enable', `/api/admin/users/${UNKNOWN_ID}/enable`, { token, body: {} });
    await hit('POST /api/admin/users/{id}/enable', `/api/admin/users/${target.id}/enable`, {
      token,
      body: { extra: true },
    });

    const leaving = await registerUser(fixture.app);
    await hit('DELETE /api/account', '/api/account', { token: leaving.tokens.access_token, body: { extra: true } });
    await hit('DELETE /api/account', '/api/account', { token: leaving.tokens.access_token, body: {} });
    await hit('DELETE /api/account', '/api/account', { token: leaving.tokens.access_token, body: {} });
    await hit('DELETE /api/account', '/api/account', { body: {} });

    answeredAsDocumented();
  });

  it('passkeys and the account security page', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.passkeys);
    const holder = await registerUser(fixture.app);
    const token = holder.tokens.access_token;
    await hit('POST /api/account/passkeys/options', '/api/account/passkeys/options', { token, body: {} });
    await hit('POST /api/account/passkeys/options', '/api/account/passkeys/options', { body: {} });
    await hit('POST /api/account/passkeys', '/api/account/passkeys', {
      token,
      body: { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: {}, clientExtensionResults: {} },
    });
    await hit('POST /api/account/passkeys', '/api/account/passkeys', { token, body: {} });
    await hit('GET /api/account/passkeys', '/api/account/passkeys', { token });
    await hit('GET /api/account/passkeys', '/api/account/passkeys');
    await hit('PATCH /api/account/passkeys/{id}', `/api/account/passkeys/${UNKNOWN_ID}`, {
      token,
      body: { name: 'Laptop' },
    });
    await hit('PATCH /api/account/passkeys/{id}', '/api/account/passkeys/not-a-uuid', { token, body: { name: 'x' } });
    await hit('PATCH /api/account/passkeys/{id}', `/api/account/passkeys/${UNKNOWN_ID}`, { token, body: {} });
    await hit('DELETE /api/account/passkeys/{id}', `/api/account/passkeys/${UNKNOWN_ID}`, { token });
    await hit('DELETE /api/account/passkeys/{id}', '/api/account/passkeys/not-a-uuid', { token });
    await hit('POST /api/account/reauthenticate/options', '/api/account/reauthenticate/options', { token, body: {} });
    await hit('POST /api/account/reauthenticate/options', '/api/account/reauthenticate/options', {
      token,
      body: { extra: true },
    });
    await hit('POST /api/account/reauthenticate/options', '/api/account/reauthenticate/options', { body: {} });

    await hit('POST /api/auth/passkey/options', '/api/auth/passkey/options', { body: {} });
    await hit('POST /api/auth/passkey/options', '/api/auth/passkey/options', { body: { email: holder.email } });
    await hit('POST /api/auth/passkey/options', '/api/auth/passkey/options', { body: { email: 'nope' } });
    await hit('POST /api/auth/passkey/verify', '/api/auth/passkey/verify', {
      body: {
        id: 'AAAA',
        rawId: 'AAAA',
        type: 'public-key',
        response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' },
        clientExtensionResults: {},
      },
    });
    await hit('POST /api/auth/passkey/verify', '/api/auth/passkey/verify', { body: {} });

    await hit('GET /account/security', '/account/security');
    await hit('GET /account/security/page.js', '/account/security/page.js');
    await hit('GET /account/security/webauthn.js', '/account/security/webauthn.js');
    await hit('GET /account/security/page.css', '/account/security/page.css');

    answeredAsDocumented();
  });

  it('the admin console', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.console);
    const page = await hit('GET /admin', '/admin');
    const asset = /\/admin\/assets\/([^"']+)/.exec(String(page.text))?.[1];
    if (asset) await hit('GET /admin/assets/{file}', `/admin/assets/${asset}`);
    await hit('GET /admin/assets/{file}', '/admin/assets/nothing-here.js');

    answeredAsDocumented();
  });

  it('the OpenID provider: authorization, its pages, and the applications a person allowed', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.openIdProvider);
    const redirectUri = 'https://rp.example.test/cb';
    await fixture.app.get(ClientsService).register(
      'contract-rp',
      {
        name: 'Contract RP',
        type: 'public',
        redirectUris: [redirectUri],
        postLogoutRedirectUris: [],
        firstParty: false,
        backchannelLogoutUri: null,
      },
      'admin',
    );
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'contract-rp',
      redirect_uri: redirectUri,
      scope: 'openid',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const page = await hit('GET /api/auth/authorize', `/api/auth/authorize?${query}`);
    await hit('GET /api/auth/authorize', `/api/auth/authorize?${query}&response_type=token`);
    await hit('GET /api/auth/authorize', '/api/auth/authorize?client_id=nobody');
    await hit('GET /api/auth/authorize/passkey.js', '/api/auth/authorize/passkey.js');
    await hit('POST /api/auth/authorize', '/api/auth/authorize', { headers: form, body: query.toString() });
    await hit('POST /api/auth/authorize', '/api/auth/authorize', { headers: form, body: 'client_id=nobody' });
    await hit('POST /api/auth/authorize/send-sms', '/api/auth/authorize/send-sms', {
      headers: form,
      body: 'client_id=nobody',
    });
    const csrf = /auth_sso_csrf=([^;]+)/.exec(String(page.headers['set-cookie']))![1];
    const cookie = { ...form, cookie: `auth_sso_csrf=${csrf}` };
    const { fields } = formFields(page.text, '/login');
    const signIn = (email: string, password: string) =>
      hit('POST /api/auth/authorize/login', '/api/auth/authorize/login', {
        headers: cookie,
        body: new URLSearchParams({ ...fields, email, password }).toString(),
      });
    await signIn(user.email, 'wrong-password-1');
    await hit('POST /api/auth/authorize/login', '/api/auth/authorize/login', { headers: form, body: 'csrf=x' });
    const consentPage = await signIn(user.email, TEST_PASSWORD);
    const sso = /auth_sso=([^;]+)/.exec(String(consentPage.headers['set-cookie']))![1];
    await hit('POST /api/auth/authorize/verify', '/api/auth/authorize/verify', {
      headers: cookie,
      body: new URLSearchParams({ ...fields, temp_token: 'not-a-token', code: '123456' }).toString(),
    });
    await hit('POST /api/auth/authorize/verify', '/api/auth/authorize/verify', { headers: form, body: 'csrf=x' });
    const consent = formFields(consentPage.text, '/consent').fields;
    await hit('POST /api/auth/authorize/consent', '/api/auth/authorize/consent', {
      headers: { ...cookie, cookie: `auth_sso_csrf=${csrf}; auth_sso=${sso}` },
      body: new URLSearchParams({ ...consent, decision: 'allow' }).toString(),
    });
    await hit('POST /api/auth/authorize/consent', '/api/auth/authorize/consent', { headers: form, body: 'csrf=x' });
    await hit('GET /api/auth/authorize/end-session', '/api/auth/authorize/end-session');
    await hit('GET /api/auth/authorize/end-session', '/api/auth/authorize/end-session?id_token_hint=x.y.z');
    await hit('POST /api/auth/authorize/end-session', '/api/auth/authorize/end-session', {
      headers: cookie,
      body: `csrf=${csrf}`,
    });
    await hit('POST /api/auth/authorize/end-session', '/api/auth/authorize/end-session', {
      headers: form,
      body: 'csrf=x',
    });
    const token = user.tokens.access_token;
    await hit('GET /api/account/applications', '/api/account/applications', { token });
    await hit('GET /api/account/applications', '/api/account/applications');
    await hit('DELETE /api/account/applications/{clientId}', '/api/account/applications/contract-rp', { token });
    await hit('DELETE /api/account/applications/{clientId}', '/api/account/applications/contract-rp', { token });
    await hit('DELETE /api/account/applications/{clientId}', '/api/account/applications/bad%20id', { token });
    // Dynamic registration is off here (OIDC_DYNAMIC_REGISTRATION): the route answers 404.
    await hit('POST /api/auth/register-client', '/api/auth/register-client', {
      body: { redirect_uris: [redirectUri] },
    });
    answeredAsDocumented();
  });

  it('organizations, members, invitations, the organization-role template and organization tokens', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.organizations);
    const token = admin.token;
    const other = user.tokens.access_token;
    const created = await hit('POST /api/organizations', '/api/organizations', {
      token,
      body: { slug: `contract-${Date.now()}`, name: 'Contract' },
    });
    const id = created.body.data.id as string;
    await hit('POST /api/organizations', '/api/organizations', {
      token,
      body: { slug: created.body.data.slug, name: 'x' },
    });
    await hit('POST /api/organizations', '/api/organizations', { token, body: { slug: 'UPPER', name: 'x' } });
    await hit('GET /api/organizations', '/api/organizations', { token });
    await hit('GET /api/admin/organizations', '/api/admin/organizations?search=contract', { token });
    await hit('GET /api/admin/organizations', '/api/admin/organizations', { token: other });
    await hit('GET /api/admin/organizations', '/api/admin/organizations?limit=0', { token });
    await hit('GET /api/organizations/{id}', `/api/organizations/${id}`, { token });
    await hit('GET /api/organizations/{id}', `/api/organizations/${id}`, { token: other });
    await hit('GET /api/organizations/{id}', '/api/organizations/not-a-uuid', { token });
    await hit('PATCH /api/organizations/{id}', `/api/organizations/${id}`, { token, body: { name: 'Renamed' } });
    await hit('PATCH /api/organizations/{id}', `/api/organizations/${id}`, { token: other, body: { name: 'x' } });
    await hit('GET /api/organizations/{id}/members', `/api/organizations/${id}/members`, { token });
    await hit('POST /api/organizations/{id}/members', `/api/organizations/${id}/members`, {
      token,
      body: { user_id: user.id, role_ids: [] },
    });
    await hit('POST /api/organizations/{id}/members', `/api/organizations/${id}/members`, {
      token,
      body: { user_id: user.id, role_ids: [] },
    });
    await hit(
      'PUT /api/organizations/{id}/members/{user_id}/roles',
      `/api/organizations/${id}/members/${user.id}/roles`,
      {
        token,
        body: { role_ids: [] },
      },
    );
    await hit(
      'PUT /api/organizations/{id}/members/{user_id}/roles',
      `/api/organizations/${id}/members/${user.id}/roles`,
      {
        token: other,
        body: { role_ids: [] },
      },
    );
    const invited = await hit('POST /api/organizations/{id}/invitations', `/api/organizations/${id}/invitations`, {
      token,
      body: { email: uniqueEmail(), role_ids: [] },
    });
    await hit('POST /api/organizations/{id}/invitations', `/api/organizations/${id}/invitations`, {
      token: other,
      body: { email: uniqueEmail(), role_ids: [] },
    });
    await hit('GET /api/organizations/{id}/invitations', `/api/organizations/${id}/invitations`, { token });
    await hit(
      'DELETE /api/organizations/{id}/invitations/{invitation_id}',
      `/api/organizations/${id}/invitations/${invited.body.data.id}`,
      { token },
    );
    await hit(
      'DELETE /api/organizations/{id}/invitations/{invitation_id}',
      `/api/organizations/${id}/invitations/${invited.body.data.id}`,
      { token },
    );
    await hit('GET /api/account/invitations', '/api/account/invitations', { token: other });
    await hit('POST /api/account/invitations/accept', '/api/account/invitations/accept', {
      token: other,
      body: { token: 'unknown' },
    });
    await hit('POST /api/auth/organization-token', '/api/auth/organization-token', {
      token,
      body: { organization_id: id },
    });
    await hit('POST /api/auth/organization-token', '/api/auth/organization-token', {
      token,
      body: { organization_id: UNKNOWN_ID },
    });
    await hit('DELETE /api/organizations/{id}/members/{user_id}', `/api/organizations/${id}/members/${user.id}`, {
      token: other,
    });
    await hit('DELETE /api/organizations/{id}/members/{user_id}', `/api/organizations/${id}/members/${admin.id}`, {
      token,
    });
    await hit('DELETE /api/organizations/{id}', `/api/organizations/${id}`, { token: other });
    await hit('DELETE /api/organizations/{id}', `/api/organizations/${id}`, { token });

    await hit('GET /api/admin/organization-roles', '/api/admin/organization-roles', { token });
    await hit('GET /api/admin/organization-roles', '/api/admin/organization-roles', { token: other });
    const role = await hit('POST /api/admin/organization-roles', '/api/admin/organization-roles', {
      token,
      body: { name: `contract-${Date.now()}` },
    });
    await hit('POST /api/admin/organization-roles', '/api/admin/organization-roles', {
      token,
      body: { name: role.body.data.name },
    });
    await hit('GET /api/admin/organization-roles/{id}', `/api/admin/organization-roles/${role.body.data.id}`, {
      token,
    });
    await hit('GET /api/admin/organization-roles/{id}', `/api/admin/organization-roles/${UNKNOWN_ID}`, { token });
    await hit('PUT /api/admin/organization-roles/{id}', `/api/admin/organization-roles/${role.body.data.id}`, {
      token,
      body: { description: 'x' },
    });
    await hit('PUT /api/admin/organization-roles/{id}', `/api/admin/organization-roles/${UNKNOWN_ID}`, {
      token,
      body: { description: 'x' },
    });
    await hit('DELETE /api/admin/organization-roles/{id}', `/api/admin/organization-roles/${role.body.data.id}`, {
      token,
    });
    await hit('DELETE /api/admin/organization-roles/{id}', `/api/admin/organization-roles/${UNKNOWN_ID}`, { token });
    await hit('GET /api/admin/organization-permissions', '/api/admin/organization-permissions', { token });
    const permission = await hit('POST /api/admin/organization-permissions', '/api/admin/organization-permissions', {
      token,
      body: { name: 'contract.check' },
    });
    await hit('POST /api/admin/organization-permissions', '/api/admin/organization-permissions', {
      token,
      body: { name: 'contract.check' },
    });
    const permissionPath = `/api/admin/organization-permissions/${permission.body.data.id}`;
    await hit('GET /api/admin/organization-permissions/{id}', permissionPath, { token });
    await hit('GET /api/admin/organization-permissions/{id}', `/api/admin/organization-permissions/${UNKNOWN_ID}`, {
      token,
    });
    await hit('PUT /api/admin/organization-permissions/{id}', permissionPath, { token, body: { description: 'x' } });
    await hit('PUT /api/admin/organization-permissions/{id}', `/api/admin/organization-permissions/${UNKNOWN_ID}`, {
      token,
      body: { description: 'x' },
    });
    await hit('DELETE /api/admin/organization-permissions/{id}', permissionPath, { token });
    await hit('DELETE /api/admin/organization-permissions/{id}', permissionPath, { token });
    answeredAsDocumented();
  });

  it('upstream identity providers, their buttons, and the holder’s identities', async () => {
    const { hit, answeredAsDocumented } = calls(TESTED_ROUTES.upstream);
    const token = admin.token;
    const provider = {
      slug: 'contract-gh',
      name: 'GitHub',
      type: 'github',
      client_id: 'gh',
      client_secret: 'gh-secret',
    };
    await hit('POST /api/admin/identity-providers', '/api/admin/identity-providers', { token, body: provider });
    await hit('POST /api/admin/identity-providers', '/api/admin/identity-providers', { token, body: provider });
    await hit('POST /api/admin/identity-providers', '/api/admin/identity-providers', {
      token,
      body: { ...provider, slug: 'contract-oidc', type: 'oidc', issuer: 'http://idp.example.test' },
    });
    await hit('POST /api/admin/identity-providers', '/api/admin/identity-providers', { body: provider });
    await hit('GET /api/admin/identity-providers', '/api/admin/identity-providers', { token });
    await hit('GET /api/admin/identity-providers', '/api/admin/identity-providers', {
      token: user.tokens.access_token,
    });
    await hit('GET /api/admin/identity-providers/{slug}', '/api/admin/identity-providers/contract-gh', { token });
    await hit('GET /api/admin/identity-providers/{slug}', '/api/admin/identity-providers/nobody', { token });
    await hit('PUT /api/admin/identity-providers/{slug}', '/api/admin/identity-providers/contract-gh', {
      token,
      body: { name: 'GitHub.com' },
    });
    await hit('PUT /api/admin/identity-providers/{slug}', '/api/admin/identity-providers/nobody', {
      token,
      body: { name: 'x' },
    });

    const redirectUri = 'https://rp.example.test/upstream-cb';
    await fixture.app.get(ClientsService).register(
      'contract-upstream-rp',
      {
        name: 'Contract RP',
        type: 'public',
        redirectUris: [redirectUri],
        postLogoutRedirectUris: [],
        firstParty: true,
        backchannelLogoutUri: null,
      },
      'admin',
    );
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'contract-upstream-rp',
      redirect_uri: redirectUri,
      scope: 'openid',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const page = await request(fixture.app.getHttpServer()).get(`/api/auth/authorize?${query}`);
    const csrf = /auth_sso_csrf=([^;]+)/.exec(String(page.headers['set-cookie']))![1];
    const { fields } = formFields(page.text, '/upstream/contract-gh');
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie: `auth_sso_csrf=${csrf}` };
    const body = new URLSearchParams(fields).toString();
    await hit('POST /api/auth/authorize/upstream/{slug}', '/api/auth/authorize/upstream/contract-gh', {
      headers: form,
      body,
    });
    await hit('POST /api/auth/authorize/upstream/{slug}', '/api/auth/authorize/upstream/nobody', {
      headers: form,
      body,
    });
    await hit('GET /api/auth/authorize/upstream/{slug}/callback', '/api/auth/authorize/upstream/contract-gh/callback');
    await hit(
      'GET /api/auth/authorize/upstream/{slug}/callback',
      '/api/auth/authorize/upstream/contract-gh/callback?state=unknown&code=x',
    );

    const own = user.tokens.access_token;
    await hit('GET /api/account/identities', '/api/account/identities', { token: own });
    await hit('GET /api/account/identities', '/api/account/identities');
    await hit('POST /api/account/identities/{id}', '/api/account/identities/contract-gh', { token: own });
    await hit('POST /api/account/identities/{id}', '/api/account/identities/nobody', { token: own });
    await hit('DELETE /api/account/identities/{id}', `/api/account/identities/${randomUUID()}`, { token: own });
    await hit('DELETE /api/account/identities/{id}', '/api/account/identities/not-a-uuid', { token: own });
    await hit('DELETE /api/admin/identity-providers/{slug}', '/api/admin/identity-providers/contract-gh', { token });
    await hit('DELETE /api/admin/identity-providers/{slug}', '/api/admin/identity-providers/contract-gh', { token });
    answeredAsDocumented();
  });

  it('calls every documented route in one of the tests above', () => {
    const tested = new Set<string>(Object.values(TESTED_ROUTES).flat());
    const documented = [...operations.keys()].filter((route) => !/ \/docs(\/|$)/.test(route));
    expect(documented.filter((route) => !tested.has(route))).toEqual([]);
  });
});

function registrationBody(): Record<string, unknown> {
  return {
    name: 'Contract Person',
    email: uniqueEmail(),
    password: TEST_PASSWORD,
    password_confirmation: TEST_PASSWORD,
  };
}
