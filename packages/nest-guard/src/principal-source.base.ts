import type { VerifiedAccessToken } from './access-token.js';
import type { PrincipalRecord } from './auth-guard.options.js';

/**
 * Where the caller's roles and permissions come from, once the token is verified. Null means
 * the session behind the token is no longer live (logged out, reset, reused, expired) or the
 * user is gone: the guard answers 401. `claims` is null when the token could not be verified
 * locally (the auth service publishes no keys): only introspection can then answer.
 */
export abstract class PrincipalSource {
  abstract load(token: string, claims: VerifiedAccessToken | null): Promise<PrincipalRecord | null>;

  /** Starts what runs in the background (the event stream); called when the application starts. */
  start(): void {}

  /** Stops it; called when the application shuts down. */
  stop(): void {}
}
