import SwaggerParser from '@apidevtools/swagger-parser';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import request from 'supertest';
import { useTestApp } from '../support/fixture.js';

interface OpenApiDocument {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        security?: Record<string, string[]>[];
        'x-required-permissions'?: Record<string, string[]>;
        requestBody?: unknown;
        responses: Record<string, unknown>;
      }
    >
  >;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
}

interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: boolean | Schema;
}

/** A schema with its `$ref` followed (to the document's components). */
function resolve(document: OpenApiDocument, schema: Schema): Schema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = document.components.schemas[name];
  if (!target) throw new Error(`unresolved ${schema.$ref}`);
  return resolve(document, target);
}

/** The JSON schema an operation documents for one status. */
function responseSchema(document: OpenApiDocument, method: string, path: string, status: string): Schema {
  const response = document.paths[path]?.[method]?.responses[status] as
    { content?: Record<string, { schema: Schema }> } | undefined;
  if (!response?.content?.['application/json']) throw new Error(`${method} ${path} documents no JSON ${status}`);
  return resolve(document, response.content['application/json'].schema);
}

/** What `data` holds in an operation's documented success envelope. */
function dataSchema(document: OpenApiDocument, method: string, path: string, status = '200'): Schema {
  const envelope = responseSchema(document, method, path, status);
  expect(envelope.required).toEqual(expect.arrayContaining(['success', 'data']));
  return resolve(document, envelope.properties!.data!);
}

const fields = (document: OpenApiDocument, schema: Schema) => Object.keys(resolve(document, schema).properties ?? {});

/**
 * Every method and path Fastify serves, read from its route tree (each line a segment, indented
 * under its parent), with `:id` written `{id}` as OpenAPI writes it.
 */
function registeredRoutes(app: NestFastifyApplication): string[] {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  const routes: string[] = [];
  const parents: string[] = [];
  for (const line of fastify.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^(.*?)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    parents.length = depth;
    const path = parents.join('') + match[2]!;
    parents.push(match[2]!);
    for (const method of (match[3] ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean)) {
      routes.push(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return routes;
}

describe('OpenAPI document and Swagger UI', () => {
  let app: NestFastifyApplication;
  let document: OpenApiDocument;

  const fixture = useTestApp();
  beforeAll(async () => {
    app = fixture.app;
    const res = await request(app.getHttpServer()).get('/docs/openapi.json');
    expect(res.status).toBe(200);
    document = res.body as OpenApiDocument;
  });

  it('is a valid OpenAPI 3 document', async () => {
    expect(document.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('describes every route the app serves', () => {
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    const served = registeredRoutes(app).filter(
      (route) => !/^(HEAD|OPTIONS) /.test(route) && !/ \/docs(\/|$)/.test(route) && !route.endsWith(' *'),
    );
    expect(served.length).toBeGreaterThan(30);
    expect(served).toContain('POST /api/auth/login');
    expect(served.filter((route) => !documented.has(route))).toEqual([]);
  });

  it('names the security and the permission each route needs, with the envelope and the errors', () => {
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['basic', 'bearer', 'cookie']);
    const me = document.paths['/api/auth/me']!.get!;
    expect(me.security).toEqual(expect.arrayContaining([{ bearer: [] }, { cookie: [] }]));
    expect(Object.keys(me.responses)).toEqual(expect.arrayContaining(['200', '401', '429']));
    const login = document.paths['/api/auth/login']!.post!;
    expect(login.security).toBeUndefined();
    expect(login.requestBody).toBeDefined();
    expect(Object.keys(document.components.schemas.LoginDto?.properties ?? {})).toEqual(
      expect.arrayContaining(['email', 'password']),
    );
    const createRole = document.paths['/api/admin/roles']!.post!;
    expect(createRole['x-required-permissions']).toEqual({ all: ['roles.create'] });
    expect(Object.keys(createRole.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403']));
  });

  it("documents login's answer: a TokenPair or the second-factor challenge, inside the envelope", () => {
    const data = dataSchema(document, 'post', '/api/auth/login');
    expect(data.oneOf).toHaveLength(2);
    const [tokenPair, challenge] = data.oneOf!.map((schema) => resolve(document, schema));
    expect(Object.keys(tokenPair!.properties!)).toEqual(
      expect.arrayContaining(['access_token', 'refresh_token', 'token_type', 'expires_in', 'user']),
    );
    expect(fields(document, tokenPair!.properties!.user!)).toEqual(
      expect.arrayContaining(['id', 'name', 'email', 'mobile']),
    );
    expect(Object.keys(challenge!.properties!)).toEqual(
      expect.arrayContaining(['requires_otp', 'temp_token', 'mobile_masked', 'methods']),
    );
    expect(fields(document, dataSchema(document, 'post', '/api/auth/refresh'))).toContain('refresh_token');
    expect(fields(document, dataSchema(document, 'post', '/api/auth/register', '201'))).toContain('access_token');
  });

  it('documents re-authentication and the routes that need a fresh sign-in', () => {
    const reauthenticate = document.paths['/api/account/reauthenticate']!.post!;
    expect(reauthenticate.requestBody).toBeDefined();
    expect(Object.keys(reauthenticate.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
    const data = dataSchema(document, 'post', '/api/account/reauthenticate');
    expect(data.oneOf!.map((schema) => fields(document, schema))).toEqual([
      expect.arrayContaining(['access_token', 'refresh_token']),
      ['expires_in'],
    ]);
    expect(Object.keys(document.components.schemas.ReauthenticateDto?.properties ?? {}).sort()).toEqual([
      'code',
      'method',
      'password',
    ]);
    for (const [method, path] of [
      ['post', '/api/account/email'],
      ['post', '/api/account/mobile'],
      ['post', '/api/account/mobile/confirm'],
      ['post', '/api/account/totp'],
      ['post', '/api/account/totp/confirm'],
      ['delete', '/api/account/totp'],
    ] as const) {
      const refusal = document.paths[path]![method]!.responses['403'] as { description: string } | undefined;
      expect(refusal?.description).toContain('REAUTHENTICATION_REQUIRED');
    }
    expect(document.paths['/api/account/password']!.post!.responses['403']).toBeUndefined();
  });

  it('documents the caller, roles, permissions, users, lists and settings by their fields', () => {
    expect(fields(document, dataSchema(document, 'get', '/api/auth/me'))).toEqual([
      'id',
      'name',
      'email',
      'mobile',
      'roles',
      'permissions',
    ]);
    expect(fields(document, dataSchema(document, 'patch', '/api/account'))).toContain('permissions');
    const role = dataSchema(document, 'get', '/api/admin/roles/{id}');
    expect(Object.keys(role.properties!)).toEqual(
      expect.arrayContaining(['id', 'name', 'display_name', 'is_system', 'permissions']),
    );
    const roles = dataSchema(document, 'get', '/api/admin/roles');
    expect(Object.keys(roles.properties!).sort()).toEqual(['items', 'total']);
    expect(fields(document, roles.properties!.items!.items!)).toContain('display_name');
    expect(fields(document, dataSchema(document, 'post', '/api/admin/permissions', '201'))).toContain('group_name');
    const users = dataSchema(document, 'get', '/api/admin/users');
    expect(Object.keys(users.properties!).sort()).toEqual(['items', 'limit', 'page', 'total']);
    expect(fields(document, users.properties!.items!.items!)).toEqual(
      expect.arrayContaining(['id', 'email', 'roles', 'created_at']),
    );
    expect(fields(document, users.properties!.items!.items!)).not.toContain('password_hash');
    expect(Object.keys(dataSchema(document, 'get', '/api/admin/settings').properties!).sort()).toEqual([
      'email_password',
      'mobile_otp',
    ]);
    expect(fields(document, dataSchema(document, 'get', '/api/contents').properties!.items!.items!)).toEqual(
      expect.arrayContaining(['title', 'body']),
    );
    expect(fields(document, dataSchema(document, 'get', '/api/account/sessions').properties!.items!.items!)).toEqual(
      expect.arrayContaining(['last_used_at', 'current']),
    );
    expect(Object.keys(dataSchema(document, 'post', '/api/account/totp').properties!)).toEqual([
      'otpauth_uri',
      'qr_svg',
    ]);
    expect(Object.keys(dataSchema(document, 'post', '/api/account/totp/confirm').properties!)).toEqual([
      'recovery_codes',
    ]);
  });

  it('documents the empty answers as an object with no fields', () => {
    for (const [method, path] of [
      ['post', '/api/auth/logout'],
      ['post', '/api/auth/reset-password'],
      ['delete', '/api/admin/roles/{id}'],
      ['delete', '/api/account/sessions/{id}'],
    ] as const) {
      const data = dataSchema(document, method, path);
      expect([method, path, data.type, data.additionalProperties, data.properties ?? {}]).toEqual([
        method,
        path,
        'object',
        false,
        {},
      ]);
    }
  });

  it('leaves no success answer as the generic envelope', () => {
    const generic = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        Object.entries(operation.responses)
          .filter(([status]) => status.startsWith('2'))
          .filter(
            ([, response]) =>
              JSON.stringify(response).includes('SuccessEnvelope') ||
              /"data":\{"type":"object"\}/.test(JSON.stringify(response)),
          )
          .map(([status]) => `${method.toUpperCase()} ${path} ${status}`),
      ),
    );
    expect(generic).toEqual([]);
  });

  it('documents introspection and the key set as bare JSON, introspection behind HTTP Basic', () => {
    const introspect = document.paths['/api/auth/introspect']!.post!;
    expect(introspect.security).toEqual([{ basic: [] }]);
    expect(document.components.securitySchemes.basic).toEqual({ type: 'http', scheme: 'basic' });
    expect(Object.keys(introspect.responses)).toEqual(expect.arrayContaining(['200', '401']));
    const answer = responseSchema(document, 'post', '/api/auth/introspect', '200');
    expect(Object.keys(answer.properties!)).toEqual(expect.arrayContaining(['active', 'sub', 'exp', 'permissions']));
    expect(answer.required).toEqual(['active']);
    const jwks = responseSchema(document, 'get', '/.well-known/jwks.json', '200');
    expect(Object.keys(jwks.properties!)).toEqual(['keys']);
    expect(fields(document, jwks.properties!.keys!.items!)).toEqual(
      expect.arrayContaining(['kty', 'kid', 'alg', 'use']),
    );
  });

  it('serves Swagger UI at /docs under a policy that lets only its own scripts run', async () => {
    const res = await request(app.getHttpServer()).get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('swagger-ui-bundle.js');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).not.toContain("script-src 'self' 'unsafe-inline'");
    const script = await request(app.getHttpServer()).get('/docs/swagger-ui-bundle.js');
    expect(script.status).toBe(200);
    const api = await request(app.getHttpServer()).get('/health');
    expect(api.headers['content-security-policy']).toContain("default-src 'none'");
  });
});

describe('DOCS_ENABLED=false', () => {
  let app: NestFastifyApplication;

  const fixture = useTestApp({ env: { DOCS_ENABLED: 'false' } });
  beforeAll(() => void ({ app } = fixture));

  it('serves neither /docs nor the document', async () => {
    expect((await request(app.getHttpServer()).get('/docs')).status).toBe(404);
    expect((await request(app.getHttpServer()).get('/docs/openapi.json')).status).toBe(404);
  });
});
