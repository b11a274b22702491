/** What a secret is replaced with in a log line. */
export const REDACTED = '[Redacted]';

/**
 * Fixed paths pino censors on its own (fast-redact, wildcards for one level): the credential
 * headers of the request log and the secret fields of any object logged at the top level or
 * one level down. `redactSecrets` below covers the same names at any depth and in any spelling.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  ...[
    'password',
    'password_confirmation',
    'token',
    'access_token',
    'refresh_token',
    'temp_token',
    'otp',
    'code',
  ].flatMap((key) => [key, `*.${key}`]),
];

/**
 * Any key naming a password (`password`, `password_hash`, `passwordConfirmation`), a token, an
 * OTP, a code, a secret, or a credential header. `statusCode` is the one `code` that is never
 * a secret and that every request line needs.
 */
export function isSecretKey(key: string): boolean {
  const name = key.toLowerCase();
  if (name === 'statuscode') return false;
  return /pass(word|wd)|secret|token|otp|code|authorization|cookie|api[-_]?key/.test(name);
}

const MAX_DEPTH = 8;

/**
 * A copy of `value` in which the value of every secret key, at any depth, is `[Redacted]`.
 * Errors are kept as they are (their serializer runs later and is redacted itself); only plain
 * objects and arrays are copied, so class instances keep their own serialization.
 */
export function redactSecrets<T>(value: T, depth = 0, seen = new WeakSet<object>()): T {
  if (value === null || typeof value !== 'object' || value instanceof Error) return value;
  if (depth >= MAX_DEPTH || seen.has(value)) return value;
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1, seen)) as T;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = isSecretKey(key) ? REDACTED : redactSecrets(item, depth + 1, seen);
  }
  return copy as T;
}

/** The path and query of a URL with the values of secret query parameters censored. */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const params = new URLSearchParams(url.slice(queryStart + 1));
  let changed = false;
  for (const key of new Set(params.keys())) {
    if (isSecretKey(key)) {
      params.set(key, REDACTED);
      changed = true;
    }
  }
  return changed ? `${url.slice(0, queryStart)}?${params.toString()}` : url;
}
