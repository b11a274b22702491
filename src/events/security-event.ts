/**
 * What other services are told (OpenID Shared Signals / CAEP names): a session ended, every
 * session of a user ended (`not_before`: tokens issued before it are dead), the roles of a user
 * changed, the permissions of a role changed, the signing keys changed. These keys are the
 * stream's wire format, kept as they are in the `payload` column.
 */
export type SecurityEvent =
  | { type: 'session-revoked'; sid: string; sub: string }
  | { type: 'credential-change'; sub: string; not_before: number }
  /** With `org_id`: the person's roles in that organization changed, or their membership began or ended. */
  | { type: 'assignment-change'; sub: string; org_id?: string }
  | { type: 'role-change'; role: string }
  | { type: 'keys-rotated'; kid: string };

export type SecurityEventType = SecurityEvent['type'];
