import { HttpStatus, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ModulesContainer } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  type ReferenceObject,
  type SchemaObject,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiCookieAuth,
  ApiExtension,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  DocumentBuilder,
  SwaggerModule,
  type OpenAPIObject,
} from '@nestjs/swagger';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import {
  ACCESS_TOKEN_COOKIE,
  FRESH_AUTH_KEY,
  IS_PUBLIC_KEY,
  REQUIRED_PERMISSIONS_KEY,
  type PermissionRequirement,
} from '@auth-rbac/nest-guard/internal';
import { AppConfig } from '../../config/app-config.js';
import { ROUTE_DOC_KEY, type RouteDoc } from '../../common/route-doc.js';
import { RESPONSE_COMPONENTS } from './response-components.js';

/**
 * The OpenAPI 3 document of the service (see `setUpOpenApi`), built from the routes Nest
 * registered, the guards' own metadata and what each handler says of itself (`@DocumentRoute`,
 * common/route-doc.ts), with the shapes of response-components.ts.
 */

/** Handlers already described; test apps build the document more than once per process. */
const described = new WeakSet<object>();

export function buildOpenApiDocument(app: NestFastifyApplication): OpenAPIObject {
  describeHandlers(app, validationMetadatasToSchemas() as Record<string, SchemaObject>);
  const config = new DocumentBuilder()
    .setTitle('Authentication and RBAC service')
    .setDescription(
      'Every `/api` answer is an envelope: `{"success": true, "data": ...}` or `{"success": false, "error": {"code", "message", "details?"}}`, ' +
        'except the bare RFC 7662 answer of `POST /api/auth/introspect` (HTTP Basic client credentials), the RFC 7517 key set at `/.well-known/jwks.json`, ' +
        'the discovery documents under `/.well-known`, and the token (RFC 6749), revocation (RFC 7009) and userinfo (OpenID Connect) endpoints. ' +
        'Routes that need a signed-in caller take the access token as a bearer token or in the `access_token` cookie; ' +
        '`x-required-permissions` lists the permissions a route needs (`all` of them or `any`).',
    )
    .setVersion('1')
    .addServer(app.get(AppConfig).http.appUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .addCookieAuth(ACCESS_TOKEN_COOKIE, { type: 'apiKey', in: 'cookie', name: ACCESS_TOKEN_COOKIE }, 'cookie')
    .addBasicAuth({ type: 'http', scheme: 'basic' }, 'basic')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  finishOperations(document);
  const schemas = ((document.components ??= {}).schemas ??= {});
  // Request DTOs carry class-validator rules, not @ApiProperty: their schemas come from those rules.
  const fromValidators = validationMetadatasToSchemas({ refPointerPrefix: '#/components/schemas/' });
  for (const [name, schema] of Object.entries(fromValidators)) {
    if (name !== 'Environment') schemas[name] = schema as never;
  }
  Object.assign(schemas, RESPONSE_COMPONENTS);
  schemas.ErrorEnvelope = {
    type: 'object',
    required: ['success', 'error'],
    properties: {
      success: { type: 'boolean', enum: [false] },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', example: 'VALIDATION_FAILED' },
          message: { type: 'string' },
          details: { type: 'array', items: { type: 'object' } },
        },
      },
    },
  };
  return document;
}

/** The success envelope around what a handler's `data` holds. */
const envelope = (data: SchemaObject | ReferenceObject): SchemaObject => ({
  type: 'object',
  required: ['success', 'data'],
  properties: { success: { type: 'boolean', enum: [true] }, data },
});
const envelopeError = { $ref: '#/components/schemas/ErrorEnvelope' };
const oauthError = { $ref: '#/components/schemas/OAuthError' };

function describeHandlers(app: NestFastifyApplication, dtoSchemas: Record<string, SchemaObject>): void {
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller || described.has(controller)) continue;
      described.add(controller);
      const prototype = controller.prototype as Record<string, unknown>;
      for (const key of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[key];
        if (
          key === 'constructor' ||
          typeof handler !== 'function' ||
          Reflect.getMetadata(PATH_METADATA, handler) === undefined
        )
          continue;
        describeHandler(controller, key, handler as object);
        describeQuery(controller, key, dtoSchemas);
      }
    }
  }
}

function describeHandler(controller: object, key: string, handler: object): void {
  const descriptor = Object.getOwnPropertyDescriptor((controller as { prototype: object }).prototype, key)!;
  const decorate = (decorator: MethodDecorator) =>
    decorator((controller as { prototype: object }).prototype, key, descriptor);
  const isPublic = Reflect.getMetadata(IS_PUBLIC_KEY, handler) ?? Reflect.getMetadata(IS_PUBLIC_KEY, controller);
  const requirement: PermissionRequirement | undefined =
    Reflect.getMetadata(REQUIRED_PERMISSIONS_KEY, handler) ?? Reflect.getMetadata(REQUIRED_PERMISSIONS_KEY, controller);
  const method: RequestMethod = Reflect.getMetadata(METHOD_METADATA, handler);
  // A handler that says nothing of itself is a gap the OpenAPI test reports, not a start-up failure.
  const answers: RouteDoc | undefined = Reflect.getMetadata(ROUTE_DOC_KEY, handler);
  const error = answers?.oauthErrors ? oauthError : envelopeError;
  const success: number =
    Reflect.getMetadata(HTTP_CODE_METADATA, handler) ??
    (method === RequestMethod.POST ? HttpStatus.CREATED : HttpStatus.OK);
  if (answers) decorate(ApiOperation({ summary: answers.summary }));

  // Every error status, with what it means here: first what every route of its kind answers, then the route's own.
  const errors = new Map<number, string>();
  // Pages and scrapes (`/reset-password`, `/metrics`) answer in their own format; the rest in the envelope.
  const pageAnswer = answers?.page;
  if (pageAnswer) {
    decorate(ApiProduces(pageAnswer.produces));
    decorate(ApiOkResponse({ description: pageAnswer.description }));
    if (pageAnswer.notFound) decorate(ApiResponse({ status: 404, description: pageAnswer.notFound, schema: error }));
    if (pageAnswer.redirect) decorate(ApiResponse({ status: 302, description: pageAnswer.redirect }));
  } else {
    const bare = answers?.bare;
    const schema = bare ?? envelope(answers?.data ?? { type: 'object' });
    decorate(
      ApiResponse({
        status: success,
        description: bare ? 'Success, bare JSON (no envelope).' : 'Success, in the envelope.',
        schema,
      }),
    );
    errors.set(400, 'VALIDATION_FAILED, INVALID_JSON or another refusal of the input.');
  }
  if (BODY_METHODS.has(method)) {
    errors.set(413, 'PAYLOAD_TOO_LARGE: the body is over the size limit.');
    errors.set(415, 'UNSUPPORTED_MEDIA_TYPE: the body is not JSON.');
  }
  errors.set(429, 'RATE_LIMITED, with Retry-After.');
  if (!answers?.noDatabase) errors.set(503, 'SERVICE_UNAVAILABLE: the database cannot be reached.');
  if (answers?.clientCredentials) {
    decorate(ApiBasicAuth('basic'));
    errors.set(
      401,
      answers.oauthErrors
        ? 'invalid_client: no valid client credentials, by HTTP Basic or client_secret_post (WWW-Authenticate: Basic).'
        : 'UNAUTHENTICATED: no valid client credentials (WWW-Authenticate: Basic).',
    );
  }
  if (!isPublic) {
    decorate(ApiBearerAuth('bearer'));
    decorate(ApiCookieAuth('cookie'));
    errors.set(401, 'UNAUTHENTICATED: no valid access token.');
    errors.set(
      403,
      'FORBIDDEN: a cookie-authenticated write from an origin that is not allowed, or an account that must enrol a second factor first.',
    );
  }
  const add = (status: number, description: string) =>
    errors.set(status, errors.has(status) ? `${errors.get(status)} Here also: ${description}` : description);
  if (requirement) {
    decorate(ApiExtension('x-required-permissions', { [requirement.mode]: requirement.permissions }));
    const missing = `FORBIDDEN without ${requirement.mode} of: ${requirement.permissions.join(', ')}.`;
    errors.set(403, errors.has(403) ? `${missing} ${errors.get(403)}` : missing);
  }
  if (Reflect.getMetadata(FRESH_AUTH_KEY, handler) ?? Reflect.getMetadata(FRESH_AUTH_KEY, controller)) {
    decorate(ApiExtension('x-requires-fresh-auth', true));
    add(
      403,
      "REAUTHENTICATION_REQUIRED when the token's `auth_time` is older than REAUTH_MAX_AGE (POST /api/account/reauthenticate).",
    );
  }
  for (const [status, description] of Object.entries(answers?.statuses ?? {})) add(Number(status), description);
  for (const [status, description] of [...errors].sort(([a], [b]) => a - b)) {
    decorate(ApiResponse({ status, description, schema: error }));
  }
}

/** Methods whose body Fastify reads (and so may refuse as too large or not JSON). */
const BODY_METHODS = new Set([RequestMethod.POST, RequestMethod.PUT, RequestMethod.PATCH, RequestMethod.DELETE]);

/**
 * What the builder cannot say through decorators: a public route's explicit `security: []` (so
 * a reader and a linter know it needs nothing, rather than that nobody said).
 */
function finishOperations(document: OpenAPIObject): void {
  for (const operations of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = operations[method];
      if (operation && !operation.security) operation.security = [];
    }
  }
}

/**
 * The query parameters of a handler that takes its whole query as a DTO (`@Query() query: X`):
 * one per property of X, with the schema its class-validator rules give.
 */
function describeQuery(controller: object, key: string, dtoSchemas: Record<string, SchemaObject>): void {
  const prototype = (controller as { prototype: object }).prototype;
  const args: Record<string, { index: number; data?: unknown }> =
    Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, key) ?? {};
  const whole = Object.entries(args).find(
    ([argKey, arg]) => argKey.startsWith(`${RouteParamtypes.QUERY}:`) && arg.data === undefined,
  );
  if (!whole) return;
  const type: (abstract new () => object) | undefined = Reflect.getMetadata('design:paramtypes', prototype, key)?.[
    whole[1].index
  ];
  // A DTO's schema holds its own rules; those it inherits (the page and limit) are its parents'.
  const properties: Record<string, SchemaObject | ReferenceObject> = {};
  const required = new Set<string>();
  for (let dto = type; dto && dto !== Object && dto.name; dto = Object.getPrototypeOf(dto)) {
    const schema = dtoSchemas[dto.name];
    for (const [name, property] of Object.entries(schema?.properties ?? {})) properties[name] ??= property;
    for (const name of schema?.required ?? []) required.add(name);
  }
  const descriptor = Object.getOwnPropertyDescriptor(prototype, key)!;
  for (const [name, property] of Object.entries(properties)) {
    ApiQuery({ name, required: required.has(name), schema: property })(prototype, key, descriptor);
  }
}
