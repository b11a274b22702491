import type { CallerKind } from '@auth-rbac/nest-guard';

/**
 * Who acts on a request: a person, or a service client calling with its own token (an
 * `AuthUser` fits). A client is no users row: the audit trail names it apart from people, and
 * its permissions are the ones its token was granted on this request.
 */
export interface Actor {
  readonly id: string;
  readonly kind: CallerKind;
}
