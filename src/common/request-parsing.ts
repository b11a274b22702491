import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppException } from './app-exception.js';
import { toErrorResponse } from './error-response.js';

/** What an empty body declared as JSON parses to; see useStrictJsonParser. */
export const EMPTY_JSON_BODY: Readonly<Record<string, never>> = Object.freeze({});

export function emptyJsonBodyRefusal(): AppException {
  return new AppException('INVALID_JSON', 'Request body is empty but declared as JSON.');
}

/**
 * The JSON body parser: Fastify's own (prototype-poisoning checks, empty-body handling), fed text
 * decoded strictly. Fastify's default decoding turns bytes that are not UTF-8 into U+FFFD, so a
 * broken body would be stored as something the client never sent; JSON text must be UTF-8
 * (RFC 8259), so such a body is refused as 400 INVALID_JSON instead.
 */
export function useStrictJsonParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // Clients set the JSON content type on every request, body or not: an empty one is handed on
    // as a marker, which routes without a body (logout) accept and DTO routes refuse (INVALID_JSON).
    if ((body as Buffer).length === 0) {
      done(null, EMPTY_JSON_BODY);
      return;
    }
    let text: string;
    try {
      text = decoder.decode(body as Buffer);
    } catch {
      done(new AppException('INVALID_JSON', 'Request body is not valid UTF-8 JSON.'), undefined);
      return;
    }
    // Fastify's default JSON parser answers through `done`; its type also allows a parser's promise form.
    void parseJson(request, text, done);
  });
}

/**
 * The routes that take a form body: RFC 7662 introspection, RFC 6749 token and RFC 7009 revocation
 * requests are forms, and so are the OpenID provider's authorization request (POST) and the forms
 * of its sign-in pages.
 */
export const FORM_BODY_ROUTES: ReadonlySet<string> = new Set([
  '/api/auth/introspect',
  '/api/auth/token',
  '/api/auth/revoke',
  '/api/auth/authorize',
  '/api/auth/authorize/login',
  '/api/auth/authorize/verify',
  '/api/auth/authorize/send-sms',
  '/api/auth/authorize/consent',
  '/api/auth/authorize/end-session',
  // A button "Continue with <name>" (the route's pattern, as Fastify names it).
  '/api/auth/authorize/upstream/:slug',
]);

/**
 * `application/x-www-form-urlencoded` for the routes of FORM_BODY_ROUTES only; every other route
 * still answers such a body 415, as before.
 */
export function useIntrospectionFormParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    if (!FORM_BODY_ROUTES.has(request.routeOptions?.url ?? '')) {
      done(new AppException('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json.'), undefined);
      return;
    }
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}

/**
 * Fastify answers a malformed URL (bad percent-encoding) or an over-long path parameter itself,
 * before any hook runs and in its own shape; this answers them in the contract's shape instead.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const { status, body, headers } = toErrorResponse(error, String(request.id));
  void reply
    .headers({
      ...headers,
      'x-request-id': String(request.id),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    })
    .status(status)
    .send(body);
}
