import type { AuditEventType, AuditLog } from '../audit/index.js';
import type { ClientInfo } from '../common/client-info.js';

/**
 * The audit of a requested email or mobile change: the request, and, when the new value belongs
 * to another account, the conflict (the holder is answered the same either way; only the trail
 * says so).
 */
export async function auditChangeRequest(
  audit: AuditLog,
  kind: 'email' | 'mobile',
  userId: string,
  client: ClientInfo,
  taken: boolean,
): Promise<void> {
  const types: AuditEventType[] = [`account.${kind}_change_request` as const];
  if (taken) types.push(`account.${kind}_change_conflict` as const);
  for (const type of types) await audit.recordOnOwnAccount(type, userId, client);
}
