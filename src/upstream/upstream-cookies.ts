/**
 * The cookies of an upstream flow. Both travel only to the provider's paths, where the upstream's
 * answer comes back (`/api/auth/authorize/upstream/{slug}/callback`) and where the sign-in pages
 * spend a link proof. `SameSite=Lax`: the upstream's answer is a top-level navigation from another site.
 */
export const UPSTREAM_COOKIE_PATH = '/api/auth/authorize';
/** The browser's binding to the flows it started (the PKCE verifier and the nonce are derived from it). */
export const UPSTREAM_BINDING_COOKIE = 'auth_upstream';
/** A link proof, spent by the next sign-in of this browser on the pages. */
export const UPSTREAM_LINK_COOKIE = 'auth_upstream_link';

export const UPSTREAM_COOKIE_OPTIONS = {
  httpOnly: true,
  secure: true,
  sameSite: 'lax',
  path: UPSTREAM_COOKIE_PATH,
  maxAge: 600,
} as const;
