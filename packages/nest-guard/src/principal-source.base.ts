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

  /**
   * What `load` would answer, when it can be told at once from memory (a caller known and not
   * revoked: the record; a revoked one: null), else undefined: the guard then awaits `load`. A
   * guarded request in steady state thus needs no promise at all. The default knows nothing.
   */
  known(_token: string, _claims: VerifiedAccessToken): PrincipalRecord | null | undefined {
    return undefined;
  }

  /** Starts what runs in the background (the event stream); called when the application starts. */
  start(): void {}

  /** Stops it; called when the application shuts down. */
  stop(): void {}
}
