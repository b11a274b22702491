import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';

export const DOCS_PATH = 'docs';
export const OPENAPI_JSON_PATH = 'docs/openapi.json';

/**
 * Swagger UI loads its scripts and styles from `/docs` itself and keeps inline styles, so its pages
 * get their own policy instead of the API's `default-src 'none'`; scripts still only come from here.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Swagger UI's own files, served as they ship in swagger-ui-dist. */
const UI_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const UI_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Authentication and RBAC service: API</title>
  <link rel="stylesheet" href="/${DOCS_PATH}/swagger-ui.css">
  <link rel="icon" type="image/png" href="/${DOCS_PATH}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/${DOCS_PATH}/swagger-ui-bundle.js"></script>
  <script src="/${DOCS_PATH}/swagger-ui-init.js"></script>
</body>
</html>
`;

// A separate same-origin script, so the page runs under script-src 'self' with nothing inline.
const UI_INIT = `window.ui = SwaggerUIBundle({ url: '/${OPENAPI_JSON_PATH}', dom_id: '#swagger-ui', deepLinking: true });\n`;

/**
 * Serves Swagger UI at `/docs` and the OpenAPI 3 document at `/docs/openapi.json`. The document is
 * built on first request, from the routes Nest registered: what each handler needs (public, signed
 * in, which permissions) is read from the same metadata the guards read, so the two cannot differ.
 * The UI's files come straight from swagger-ui-dist: SwaggerModule.setup would need @fastify/static,
 * which Jest on Node 20 cannot load (it requires an ES module), for three fixed files.
 *
 * The builder and what it needs (@nestjs/swagger, class-validator-jsonschema: some 15 MB of heap)
 * are loaded with the first request for the document, not at start.
 */
export function setUpOpenApi(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  let document: string | undefined;
  const assets = new Map<string, Buffer>();
  const page = async (_request: unknown, reply: FastifyReply) =>
    reply.header('content-security-policy', DOCS_CSP).type('text/html; charset=utf-8').send(UI_PAGE);
  fastify.get(`/${DOCS_PATH}`, page);
  fastify.get(`/${DOCS_PATH}/`, page);
  fastify.get(`/${DOCS_PATH}/swagger-ui-init.js`, async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').send(UI_INIT),
  );
  fastify.get(`/${OPENAPI_JSON_PATH}`, async (_request, reply) => {
    if (document === undefined) {
      const { buildOpenApiDocument } = await import('./openapi-document.js');
      document = JSON.stringify(buildOpenApiDocument(app));
    }
    return reply.type('application/json; charset=utf-8').send(document);
  });
  for (const [file, type] of Object.entries(UI_ASSETS)) {
    fastify.get(`/${DOCS_PATH}/${file}`, async (_request, reply) => {
      if (!assets.has(file)) assets.set(file, await readFile(path.join(swaggerUiDirectory(), file)));
      return reply.type(type).send(assets.get(file));
    });
  }
}

function swaggerUiDirectory(): string {
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}
