import { SetMetadata } from '@nestjs/common';
import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';

/**
 * What a route answers, written on its handler (`@DocumentRoute({...})`) and read by the OpenAPI
 * builder (ops/openapi). Only what the route adds is written here: what every route of its kind
 * answers (the success, 400 for a refused input, 413 and 415 for a body, 401 and 403 behind a
 * token, 403 for a missing permission or an old sign-in, 429 and 503) comes from the metadata the
 * guards read. A handler without it fails the OpenAPI tests; a status it answers that is declared
 * nowhere fails the contract test (test/ops/openapi-contract). See docs/openapi.md.
 *
 * Only the type of the OpenAPI schemas is imported: the builder and @nestjs/swagger are loaded
 * with the first request for the document, never at start.
 */
export type Schema = SchemaObject | ReferenceObject;

export interface RouteDoc {
  summary: string;
  /** What `data` holds in the success envelope (an object of any shape when left out). */
  data?: Schema;
  /** Instead of the envelope, the bare JSON a standard fixes (RFC 7662, RFC 7517, RFC 6749...). */
  bare?: Schema;
  /** Instead of JSON, a page or a scrape in a format of its own, with what it serves. */
  /** `redirect`: what a 302 answer of the page's route means (the OpenID provider's pages). */
  page?: { produces: string; description: string; notFound?: string; redirect?: string };
  /** Status → what it means here, the error code first; added to what the route's kind answers. */
  statuses?: Partial<Record<400 | 401 | 403 | 404 | 409 | 429 | 503, string>>;
  /** Authenticated by HTTP Basic client credentials instead of an access token. */
  clientCredentials?: true;
  /** Refusals are RFC 6749 §5.2 errors (bare JSON), not the envelope. */
  oauthErrors?: true;
  /** The route reads no database (503 is not among its answers). */
  noDatabase?: true;
}

export const ROUTE_DOC_KEY = 'route-doc';

/** The documentation of one route, beside its handler. */
export const DocumentRoute = (doc: RouteDoc): MethodDecorator => SetMetadata(ROUTE_DOC_KEY, doc);

/** A shape of the document's components (ops/openapi/response-components.ts), by its name. */
export const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

/** `{items, total}`: a whole list. */
export const list = (item: Schema): SchemaObject => ({
  type: 'object',
  required: ['items', 'total'],
  properties: { items: { type: 'array', items: item }, total: { type: 'integer', minimum: 0 } },
});

/** `{items, total, page, limit}`: one page of a longer list. */
export const page = (item: Schema): SchemaObject => ({
  type: 'object',
  required: ['items', 'total', 'page', 'limit'],
  properties: {
    items: { type: 'array', items: item },
    total: { type: 'integer', minimum: 0 },
    page: { type: 'integer', minimum: 1 },
    limit: { type: 'integer', minimum: 1 },
  },
});

/** `{}`: the answer of a change that has nothing to report. */
export const empty: SchemaObject = { type: 'object', additionalProperties: false, properties: {} };

/** A session's tokens, or what stands before them (a second-factor challenge, say). */
export const tokensOr = (other: Schema): SchemaObject => ({ oneOf: [ref('TokenPair'), other] });
