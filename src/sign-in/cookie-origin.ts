/** Methods that change state; a cookie-authenticated one must come from a trusted origin. */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const isWriteMethod = (method: string): boolean => WRITE_METHODS.has(method.toUpperCase());

/** `scheme://host[:port]` of a URL, normalised as browsers serialise origins; null when it has none. */
export function originOf(value: string): string | null {
  try {
    const origin = new URL(value).origin;
    // Opaque origins (file:, data:, sandboxed documents) serialise as "null" and match nothing.
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * The origin a browser vouches for: the `Origin` header when it is sent, else the origin of the
 * `Referer`. An `Origin` that is present but not a usable origin (`null`) is not replaced by the
 * Referer, which the page could have chosen.
 */
export function claimedOrigin(headers: { origin?: string; referer?: string }): string | null {
  if (headers.origin !== undefined) return originOf(headers.origin);
  if (headers.referer !== undefined) return originOf(headers.referer);
  return null;
}

/** The origins allowed to make cookie-authenticated writes: APP_URL's and CORS_ORIGINS, plus the request's own. */
export class TrustedOrigins {
  private readonly origins: Set<string>;

  constructor(appUrl: string, corsOrigins: readonly string[]) {
    this.origins = new Set(
      [appUrl, ...corsOrigins].map(originOf).filter((origin): origin is string => origin !== null),
    );
  }

  allows(origin: string | null, ownOrigin: string | null): boolean {
    if (origin === null) return false;
    return this.origins.has(origin) || (ownOrigin !== null && origin === ownOrigin);
  }
}
