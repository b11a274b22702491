import { RequestMethod, type INestApplication, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyCors from '@fastify/cors';
import helmet from 'helmet';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { frameworkErrorHandler, useIntrospectionFormParser, useStrictJsonParser } from './common/request-parsing.js';
import { AppConfig } from './config/app-config.js';
import { BrowserOrigins } from './clients/index.js';
import { setUpOpenApi } from './ops/index.js';
import { countRequest } from './infra/telemetry/request-metrics.js';
import { NestLogLines, ServiceLog } from './infra/telemetry/service-log.js';

/** Request ids from a client are kept only when they look like ids, never as free text for logs. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

export function createHttpAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    trustProxy: trustProxyHops(config.http.trustProxy),
    // Keeps the event loop's time for requests: a refused poisoned body costs nothing.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    frameworkErrors: frameworkErrorHandler,
    return503OnClosing: true,
    genReqId: (request: IncomingMessage) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : randomUUID();
    },
  });
}

/**
 * TRUST_PROXY is the number of proxies in front of the service: the client address is taken that
 * many hops back along X-Forwarded-For. Fastify 5.12 ignores a bare number (it cannot check the
 * peer is a proxy), so the count is given as a function; unset, X-Forwarded-For is never read.
 */
function trustProxyHops(hops: number | undefined): false | ((address: string, hop: number) => boolean) {
  if (!hops) return false;
  return (_address, hop) => hop < hops;
}

/**
 * The endpoints a browser app signing people in through the OpenID provider calls with `fetch`
 * (discovery, JWKS, token, userinfo, revocation): CORS for the origins of public clients'
 * registered redirect URIs, without credentials.
 */
const BROWSER_APP_PATHS = new Set([
  '/.well-known/openid-configuration',
  '/.well-known/oauth-authorization-server',
  '/.well-known/jwks.json',
  '/api/auth/token',
  '/api/auth/userinfo',
  '/api/auth/revoke',
]);

/**
 * The CORS answer for a request, one mechanism for both cases: CORS_ORIGINS get it with
 * credentials (cookies) on every route, as before; a browser app's registered origin only on the
 * endpoints it calls, without credentials; any other origin nothing (no Access-Control-Allow-Origin).
 */
function corsOf(config: AppConfig, browserOrigins: BrowserOrigins) {
  const withCredentials = { origin: config.http.corsOrigins, credentials: true };
  return async (request: FastifyRequest): Promise<Record<string, unknown>> => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string') return { origin: false };
    if (config.http.corsOrigins.includes(origin)) return withCredentials;
    const path = request.url.split('?', 1)[0];
    if (BROWSER_APP_PATHS.has(path) && (await browserOrigins.allows(origin))) {
      return {
        origin,
        credentials: false,
        methods: ['GET', 'POST'],
        allowedHeaders: ['authorization', 'content-type'],
        maxAge: 600,
      };
    }
    return { origin: false };
  };
}

/**
 * Everything about the HTTP layer that lives outside Nest's modules, shared by `main.ts` and the
 * tests so both serve exactly the same thing.
 */
export async function configureHttpApp(app: NestFastifyApplication): Promise<void> {
  const config = app.get(AppConfig);
  await app.register(fastifyCookie as never);
  // Helmet's middleware, built once: it works its headers out when it is built (the Fastify
  // plugin builds it anew for every request). Pages set their own Content-Security-Policy on the
  // reply, which Fastify writes over this one.
  const securityHeaders = helmet({
    // An API serves no documents: nothing may be framed, loaded or run from its responses.
    contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    hsts: { maxAge: 31_536_000, includeSubDomains: true },
  });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (request, reply, done) => securityHeaders(request.raw, reply.raw, () => done()));
  await app.register(fastifyCors as never, { delegator: corsOf(config, app.get(BrowserOrigins)) } as never);
  app.setGlobalPrefix('api', {
    exclude: [
      { path: 'health', method: RequestMethod.ALL },
      { path: 'health/ready', method: RequestMethod.ALL },
      { path: 'metrics', method: RequestMethod.ALL },
      { path: 'reset-password', method: RequestMethod.ALL },
      { path: 'reset-password/page.js', method: RequestMethod.ALL },
      { path: 'reset-password/page.css', method: RequestMethod.ALL },
      { path: 'account/security', method: RequestMethod.GET },
      { path: 'account/security/page.js', method: RequestMethod.GET },
      { path: 'account/security/page.css', method: RequestMethod.GET },
      { path: 'account/security/webauthn.js', method: RequestMethod.GET },
      { path: 'admin', method: RequestMethod.GET },
      { path: 'admin/assets/:file', method: RequestMethod.GET },
      { path: 'confirm-email', method: RequestMethod.ALL },
      { path: 'confirm-email/page.js', method: RequestMethod.ALL },
      { path: 'cancel-email-change', method: RequestMethod.ALL },
      { path: 'cancel-email-change/page.js', method: RequestMethod.ALL },
      { path: 'verify-email', method: RequestMethod.ALL },
      { path: 'verify-email/page.js', method: RequestMethod.ALL },
      { path: 'verify-email/page.css', method: RequestMethod.ALL },
      { path: '.well-known/jwks.json', method: RequestMethod.GET },
      { path: '.well-known/openid-configuration', method: RequestMethod.GET },
      { path: '.well-known/oauth-authorization-server', method: RequestMethod.GET },
    ],
  });
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  // Bodies are JSON only: anything else is 415 before it reaches a handler.
  for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
    if (fastify.hasContentTypeParser(type)) fastify.removeContentTypeParser(type);
  }
  useStrictJsonParser(fastify);
  useIntrospectionFormParser(fastify);
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    // Responses of an auth service carry tokens and personal data: no cache may keep them.
    void reply.header('cache-control', 'no-store');
  });
  fastify.addHook('onResponse', async (request, reply) => countRequest(request, reply));
  if (config.operations.docsEnabled) setUpOpenApi(app);
  app.enableShutdownHooks();
}

/**
 * Fastify's own JSON parser (prototype-poisoning checks, the body limit) is the only body parser;
 * Nest's would add a form-urlencoded one, and the API takes JSON only.
 */
export const APP_OPTIONS = { bodyParser: false } as const;

export async function createApp(
  module: unknown,
  config: AppConfig,
  startupLogger?: LoggerService,
): Promise<NestFastifyApplication> {
  // Start-up lines wait in a buffer until the JSON logger exists, then leave through it. A failure
  // before then (an unreachable database) goes through `startupLogger` and back to the caller,
  // which reports it once, instead of Nest's coloured logger and its exit.
  const app = await NestFactory.create<NestFastifyApplication>(module as never, createHttpAdapter(config), {
    ...APP_OPTIONS,
    bufferLogs: true,
    abortOnError: false,
    ...(startupLogger ? { logger: startupLogger } : {}),
  });
  useStructuredLogs(app);
  await configureHttpApp(app);
  return app;
}

/**
 * Nest's `Logger` (every `new Logger('X').log(...)`) writes through pino (src/infra/telemetry/)
 * from now on, and every request is logged, its lines carrying its id.
 */
export function useStructuredLogs(app: NestFastifyApplication): void {
  const log = app.get(ServiceLog);
  log.recordRequests(app.getHttpAdapter().getInstance() as unknown as FastifyInstance);
  app.useLogger(new NestLogLines(log));
}

export type { INestApplication };
