/**
 * The rules of a client's URIs (the contract's "Redirect URIs"): what may be registered, and when
 * a URI a request carries is one of the registered ones.
 *
 * Registration: absolute, printable ASCII, no fragment, no wildcard, no userinfo, in the canonical
 * form a browser would send (lowercase scheme and host, no default port, no dot segments, not even
 * `..;`), and
 * `https`; `http` only on a loopback host (`localhost`, `127.0.0.1`, `[::1]`); or, for a public
 * client's redirects only, a private-use scheme containing a dot (RFC 8252 §7.1). Requiring the
 * canonical form at registration is what lets a request be compared character for character:
 * every other spelling of the same address (case, percent-encoding, `..`, a default port, a
 * backslash, an IPv4 in hex) is refused rather than interpreted.
 *
 * Matching: the request's URI must equal a registered one character for character, except that a
 * registered loopback URI accepts any port (RFC 8252 §7.3: a native app listens on whatever port
 * the system gives it).
 */

export type ClientType = 'confidential' | 'public';

/** What the URI is for: a redirect after sign-in or sign-out, or the back-channel logout receiver (which the service calls). */
export type ClientUriKind = 'redirect' | 'post_logout_redirect' | 'backchannel_logout';

export const CLIENT_URI_MAX_LENGTH = 2000;

export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** A loopback http(s) URI split where a port would be: scheme, host, port (digits) and the rest (path and query). */
const LOOPBACK = /^(https?):\/\/(localhost|127\.0\.0\.1|\[::1\])(?::([0-9]{1,5}))?([/?][\x21-\x7e]*)?$/;

/** A private-use scheme (RFC 8252 §7.1): lowercase, and a dot, as a reversed domain name has. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/;

/**
 * Why the URI cannot be registered for a client of this type, as a sentence; null when it can.
 * The message never echoes the URI, only its canonical form when that is what is asked for.
 */
export function clientUriProblem(uri: unknown, type: ClientType, kind: ClientUriKind): string | null {
  if (typeof uri !== 'string' || uri.length === 0) return 'must be a non-empty string';
  if (uri.length > CLIENT_URI_MAX_LENGTH) return `must be at most ${CLIENT_URI_MAX_LENGTH} characters long`;
  if (!/^[\x21-\x7e]+$/.test(uri)) {
    return 'must be printable ASCII without spaces (an international domain name in its xn-- form)';
  }
  if (uri.includes('#')) return 'must not have a fragment (#)';
  if (uri.includes('*')) return 'must not contain a wildcard (*)';
  if (uri.includes('\\')) return 'must not contain a backslash';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  const scheme = url.protocol.slice(0, -1);
  if (hasUserinfo(uri, url)) return 'must not contain userinfo (user@ or user:password@)';

  if (scheme === 'https' || scheme === 'http') {
    if (!uri.toLowerCase().startsWith(`${scheme}://`) || url.hostname === '') return 'must be an absolute URI';
    if (scheme === 'http' && !LOOPBACK_HOSTS.includes(url.hostname)) {
      return 'may use http only on a loopback host (localhost, 127.0.0.1 or [::1]); use https';
    }
    if (hasParameterDotSegment(url)) return 'must not contain a dot segment with parameters (..; or .;)';
    return isCanonical(uri, url) ? null : `must be written in its canonical form: ${url.href}`;
  }

  if (kind === 'backchannel_logout') return 'must use https, or http on a loopback host';
  if (!PRIVATE_USE_SCHEME.test(scheme)) {
    return (
      'must use https, http on a loopback host, or (for public clients) a private-use scheme containing ' +
      'a dot, such as com.example.app:/callback'
    );
  }
  if (type !== 'public') return 'may use a private-use scheme only for a public client';
  if (hasParameterDotSegment(url)) return 'must not contain a dot segment with parameters (..; or .;)';
  return isCanonical(uri, url) ? null : `must be written in its canonical form: ${url.href}`;
}

/** Whether the URI is registered for the client: equal character for character, any port for a registered loopback URI. */
export function matchesRegisteredUri(registered: readonly string[], requested: unknown): boolean {
  if (typeof requested !== 'string' || requested.length === 0 || requested.length > CLIENT_URI_MAX_LENGTH) return false;
  if (registered.includes(requested)) return true;
  const asked = LOOPBACK.exec(requested);
  if (!asked || !validPort(asked[3])) return false;
  return registered.some((uri) => {
    const own = LOOPBACK.exec(uri);
    return own !== null && own[1] === asked[1] && own[2] === asked[2] && (own[4] ?? '') === (asked[4] ?? '');
  });
}

/** Whether the URI is a loopback one (whose port a request may change). */
export function isLoopbackUri(uri: string): boolean {
  return LOOPBACK.test(uri);
}

/** Absent, or 1 to 65535 without a leading zero. */
function validPort(port: string | undefined): boolean {
  if (port === undefined) return true;
  return /^[1-9][0-9]*$/.test(port) && Number(port) <= 65535;
}

/** Userinfo, also an empty one (`https://@host/`), which the parser would drop silently. */
function hasUserinfo(uri: string, url: URL): boolean {
  if (url.username !== '' || url.password !== '') return true;
  const afterScheme = uri.slice(url.protocol.length);
  if (!afterScheme.startsWith('//')) return false;
  const authority = afterScheme.slice(2).split(/[/?]/, 1)[0];
  return authority.includes('@');
}

/**
 * A path segment that is `.` or `..` before a `;` (`/callback/..;/admin`): the WHATWG parser keeps
 * it, but servers that read `;` as segment parameters (Tomcat, Spring, Jetty) resolve it as a dot
 * segment, so the URI would lead somewhere other than it reads.
 */
function hasParameterDotSegment(url: URL): boolean {
  return url.pathname.split('/').some((segment) => /^(\.|%2e){1,2};/i.test(segment));
}

/**
 * The URI is as the WHATWG parser writes it (what a browser sends): lowercase scheme and host, no
 * default port, no dot segments, IP addresses in their usual form. A bare origin may omit its `/`.
 */
function isCanonical(uri: string, url: URL): boolean {
  if (url.href === uri) return true;
  return url.href === `${uri}/` && url.pathname === '/' && url.search === '' && !uri.endsWith('?');
}
