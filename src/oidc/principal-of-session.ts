import type { CallerKind, PrincipalRecord } from '@auth-rbac/nest-guard/internal';
import type { PrincipalService } from '../rbac/index.js';
import { principalOfCaller } from '../sessions/index.js';
import type { ClientTokensService } from './client-tokens.service.js';
import type { SessionRef } from '../common/session-ref.js';

/**
 * The caller of a live session, or of a live service token, by the token's kind (see
 * principalOfCaller): the service's own guard and introspection ask this.
 */
export function principalOfSession(
  principals: PrincipalService,
  clientTokens: ClientTokensService,
  caller: SessionRef & { kind: CallerKind },
): Promise<PrincipalRecord | null> {
  // The record may be PrincipalService's cached one, shared by the session's requests: it is
  // frozen there, and nothing on the way changes it.
  return principalOfCaller(caller, {
    person: (session) => principals.load(session),
    service: (token) => clientTokens.principal(token),
  });
}
