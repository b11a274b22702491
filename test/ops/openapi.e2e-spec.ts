import SwaggerParser from '@apidevtools/swagger-parser';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import request from 'supertest';
import { createTestApp } from '../support/test-app.js';

interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, { security?: Record<string, string[]>[]; 'x-required-permissions'?: Record<string, string[]>; requestBody?: unknown; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }>; securitySchemes: Record<string, unknown> };
}

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
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim()).filter(Boolean)) {
      routes.push(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return routes;
}

describe('OpenAPI document and Swagger UI', () => {
  let app: NestFastifyApplication;
  let document: OpenApiDocument;

  beforeAll(async () => {
    app = await createTestApp();
    const res = await request(app.getHttpServer()).get('/docs/openapi.json');
    expect(res.status).toBe(200);
    document = res.body as OpenApiDocument;
  });
  afterAll(async () => {
    await app.close();
  });

  it('is a valid OpenAPI 3 document', async () => {
    expect(document.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('describes every route the app serves', () => {
    const documented = new Set(Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`)));
    const served = registeredRoutes(app).filter((route) => !/^(HEAD|OPTIONS) /.test(route) && !/ \/docs(\/|$)/.test(route) && !route.endsWith(' *'));
    expect(served.length).toBeGreaterThan(30);
    expect(served).toContain('POST /api/auth/login');
    expect(served.filter((route) => !documented.has(route))).toEqual([]);
  });

  it('names the security and the permission each route needs, with the envelope and the errors', () => {
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['bearer', 'cookie']);
    const me = document.paths['/api/auth/me']!.get!;
    expect(me.security).toEqual(expect.arrayContaining([{ bearer: [] }, { cookie: [] }]));
    expect(Object.keys(me.responses)).toEqual(expect.arrayContaining(['200', '401', '429']));
    const login = document.paths['/api/auth/login']!.post!;
    expect(login.security).toBeUndefined();
    expect(login.requestBody).toBeDefined();
    expect(Object.keys(document.components.schemas.LoginDto?.properties ?? {})).toEqual(expect.arrayContaining(['email', 'password']));
    const createRole = document.paths['/api/admin/roles']!.post!;
    expect(createRole['x-required-permissions']).toEqual({ all: ['roles.create'] });
    expect(Object.keys(createRole.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403']));
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

  beforeAll(async () => {
    app = await createTestApp({ env: { DOCS_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await app.close();
  });

  it('serves neither /docs nor the document', async () => {
    expect((await request(app.getHttpServer()).get('/docs')).status).toBe(404);
    expect((await request(app.getHttpServer()).get('/docs/openapi.json')).status).toBe(404);
  });
});
