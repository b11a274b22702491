import type { CallerKind, PrincipalRecord } from '@auth-rbac/nest-guard/internal';
import type { SessionRef } from '../common/session-ref.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The ids a token names for rows (`sid`, `jti`, a service token's row) are looked up in uuid
 * columns: anything else in a (validly signed) token is refused as a bad token, not left to fail
 * as a database error.
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * A person's id as a token's `sub` names it: a users row's key, so a UUID; null for anything
 * else. The one place the shape of `sub` is read: whether a caller is a person or a service is
 * the token's `kind` (the guard package's `callerKindOf`), never this shape.
 */
export function personIdOf(sub: unknown): string | null {
  return isUuid(sub) ? sub : null;
}

/** Where each kind of caller is loaded from. */
export interface CallerSources {
  /** A person's live session: their record, roles and permissions. */
  person(session: SessionRef): Promise<PrincipalRecord | null>;
  /** A service client's live token (`userId` the client, `sessionId` the token's row). */
  service(token: SessionRef): Promise<PrincipalRecord | null>;
}

/**
 * The caller behind a verified access token, by its kind: a person's live session, or a service
 * client's live token. Null (401) when either is gone, or when the token names its rows with ids
 * of the wrong shape. Each source answers records that say their own kind.
 */
export function principalOfCaller(
  caller: SessionRef & { kind: CallerKind },
  sources: CallerSources,
): Promise<PrincipalRecord | null> {
  if (!isUuid(caller.sessionId)) return Promise.resolve(null);
  if (caller.kind === 'service') return sources.service(caller);
  return personIdOf(caller.userId) === null ? Promise.resolve(null) : sources.person(caller);
}
