import { type PrincipalRecord } from '@auth-rbac/nest-guard/internal';
import type { PrincipalService } from '../rbac/index.js';
import { isUuid } from '../sessions/index.js';
import type { ClientTokensService } from './client-tokens.service.js';
import type { SessionRef } from '../common/session-ref.js';

/**
 * The caller of a live session, or of a live service token: a subject that is not a UUID is a
 * service client (the client-credentials grant never serves a client whose id looks like a UUID),
 * whose `sid` is its token's row. Ids of the wrong shape are a bad token, not a database error.
 */
export async function principalOfSession(
  principals: PrincipalService,
  clientTokens: ClientTokensService,
  session: SessionRef,
): Promise<PrincipalRecord | null> {
  if (!isUuid(session.sessionId)) return null;
  // The record may be PrincipalService's cached one, shared by the session's requests: it is
  // frozen there, and nothing on the way changes it.
  return isUuid(session.userId) ? principals.load(session) : clientTokens.principal(session);
}
