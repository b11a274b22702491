import { createHmac } from 'node:crypto';
import http from 'node:http';

import { TEST_JWT_SECRET } from '../support/test-config.js';

/**
 * Tools of the hostile-input suite: a raw HTTP client (exact bytes, exact headers, no content type
 * unless told), JWT forgery, and the checks every refused request must pass.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RawRequest {
  method: Method;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request over a keep-alive agent; the body is sent byte for byte. */
export function rawRequest(port: number, agent: http.Agent, request: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.body) headers['content-length'] = request.body.length;
    const req = http.request(
      { host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

export const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');
export const raw = (text: string) => Buffer.from(text, 'utf8');

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** A JWT built by hand, so the header can say anything. `alg: none` gets an empty signature. */
export function forgeJwt(payload: Record<string, unknown>, options: { alg?: string; secret?: string } = {}): string {
  const alg = options.alg ?? 'HS256';
  const head = `${b64url({ alg, typ: 'JWT' })}.${b64url(payload)}`;
  const hmac = ({ HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' } as Record<string, string>)[alg];
  if (!hmac) return `${head}.`;
  return `${head}.${createHmac(hmac, options.secret ?? TEST_JWT_SECRET)
    .update(head)
    .digest('base64url')}`;
}

/** What an error body may never contain: stack frames, paths, SQL, driver or framework names. */
const LEAKS: [string, RegExp][] = [
  ['a stack frame', /\bat [\w$.<>[\] ]+ \(|\n\s+at |"stack"/],
  ['a file path', /\/(work|src|dist|node_modules|home|usr|srv|app)\/|\.(ts|js|mjs|cjs):\d+/],
  [
    'a library name',
    /typeorm|QueryFailedError|EntityNotFound|\bpg\b|pglite|node-postgres|postgres|fastify|\bFST_|class-validator|class-transformer|@nestjs|passport|jsonwebtoken|argon2/i,
  ],
  [
    'SQL',
    /\bSELECT\b.*\bFROM\b|INSERT INTO|DELETE FROM|\bUPDATE\b.*\bSET\b|syntax error|violates|duplicate key|\brelation "|\bcolumn "|\bSQLSTATE\b/i,
  ],
  [
    'an internal error name',
    /\b(TypeError|RangeError|SyntaxError|ReferenceError|Maximum call stack)\b|Unexpected token|JSON at position|\[object Object\]|\bundefined\b|\bNaN\b/,
  ],
  ['a network error', /\bECONN\w+|\bEPIPE\b|ETIMEDOUT/],
];

const CODE_FORMAT = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;

/**
 * Every error code a response may carry and the status it travels with, as the contract's table
 * writes them (docs/CONTRACT.md, "Wire conventions"), and three it does not list there:
 * CONFIRMATION_TOKEN_INVALID (the contract's email-change endpoint), UNSUPPORTED_MEDIA_TYPE
 * (docs/decisions/027-unsupported-media-type.md) and METHOD_NOT_ALLOWED (a known path with a
 * method it does not serve).
 */

const CONTRACT_CODES: Record<string, number> = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  RESET_TOKEN_INVALID: 400,
  CONFIRMATION_TOKEN_INVALID: 400,
  INVALID_CREDENTIALS: 401,
  UNAUTHENTICATED: 401,
  REFRESH_TOKEN_REUSED: 401,
  INVALID_OTP: 401,
  OTP_EXPIRED: 401,
  OTP_ATTEMPTS_EXCEEDED: 401,
  FORBIDDEN: 403,
  SYSTEM_PROTECTED: 403,
  LOGIN_METHOD_DISABLED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

export interface Expectation {
  status?: number | number[];
  code?: string | string[];
}

/** Every way `res`, the answer to a hostile request, breaks the contract's error shape; empty when it keeps it. */
export function errorShapeProblems(res: RawResponse, expected: Expectation = {}): string[] {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`status ${res.status}`);
  else if (res.status < 400) problems.push(`status ${res.status} (not an error)`);
  const statuses = expected.status === undefined ? [] : ([] as number[]).concat(expected.status);
  if (statuses.length > 0 && !statuses.includes(res.status))
    problems.push(`status ${res.status}, expected ${statuses.join(' or ')}`);
  if (!String(res.headers['content-type'] ?? '').startsWith('application/json'))
    problems.push(`content-type ${res.headers['content-type']}`);
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return [...problems, `body is not JSON: ${res.text.slice(0, 120)}`];
  }
  const top = body as { success?: unknown; error?: Record<string, unknown> };
  if (
    !isPlainObject(body) ||
    Object.keys(body).sort().join() !== 'error,success' ||
    top.success !== false ||
    !isPlainObject(top.error)
  ) {
    return [...problems, `not the error shape: ${res.text.slice(0, 200)}`];
  }
  const error = top.error!;
  const extra = Object.keys(error).filter((key) => !['code', 'message', 'details'].includes(key));
  if (extra.length > 0) problems.push(`error has extra keys ${extra.join(', ')}`);
  if (typeof error.code !== 'string' || !CODE_FORMAT.test(error.code))
    problems.push(`code ${JSON.stringify(error.code)}`);
  else if (!Object.hasOwn(CONTRACT_CODES, error.code)) problems.push(`code ${error.code} is not one of the contract's`);
  else if (CONTRACT_CODES[error.code] !== res.status) problems.push(`code ${error.code} with status ${res.status}`);

  const codes = expected.code === undefined ? [] : ([] as string[]).concat(expected.code);
  if (codes.length > 0 && !codes.includes(String(error.code)))
    problems.push(`code ${String(error.code)}, expected ${codes.join(' or ')}`);
  if (typeof error.message !== 'string' || error.message.length === 0)
    problems.push('message is not a non-empty string');
  if (error.details !== undefined && (!Array.isArray(error.details) || !error.details.every(isPlainObject))) {
    problems.push('details is not an array of objects');
  }
  for (const [what, pattern] of LEAKS) {
    const match = pattern.exec(res.text);
    if (match) problems.push(`body shows ${what} (${JSON.stringify(match[0])})`);
  }
  return problems;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
