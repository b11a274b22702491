import type { CallerKind } from '@auth-rbac/nest-guard';

/** What happened, to whom and by whom: one row of the audit trail. */
export type AuditEventType =
  | 'login.success'
  | 'login.failure'
  | 'login.locked'
  | '2fa.challenge'
  | '2fa.success'
  | '2fa.failure'
  | '2fa.lockout'
  | 'message.undelivered'
  | 'otp.sent'
  | 'otp.success'
  | 'otp.failure'
  | 'refresh'
  | 'refresh.reuse'
  | 'logout'
  | 'register'
  | 'password_reset.request'
  | 'password_reset.complete'
  | 'role.create'
  | 'role.update'
  | 'role.delete'
  | 'permission.create'
  | 'permission.update'
  | 'permission.delete'
  | 'user.create'
  | 'user.update'
  | 'user.delete'
  | 'user.roles'
  | 'client.create'
  | 'client.update'
  | 'client.secret'
  | 'client.delete'
  | 'client.roles'
  | 'client.token'
  | 'client.revoke'
  | 'settings.update'
  | 'authz.escalation_refused'
  | 'account.update'
  | 'account.password_change'
  | 'account.reauthentication'
  | 'account.reauthentication_failure'
  | 'account.email_change_request'
  | 'account.email_change'
  | 'account.email_change_conflict'
  | 'account.email_change_cancel'
  | 'account.mobile_change_request'
  | 'account.mobile_change'
  | 'account.mobile_change_conflict'
  | 'session.revoke'
  | 'session.revoke_others'
  | 'totp.enrolment_start'
  | 'totp.enable'
  | 'totp.disable'
  | 'totp.reset'
  | 'recovery_codes.regenerate'
  | 'totp.failure'
  | 'passkey.register'
  | 'passkey.rename'
  | 'passkey.remove'
  | 'passkey.use'
  | 'passkey.failure'
  | 'passkey.counter_regression'
  | 'passkey.login'
  | '2fa.recovery_code_used'
  | '2fa.enrolment_required'
  | 'login.disabled'
  | 'login.unverified'
  | 'user.disable'
  | 'user.enable'
  | 'email.verification_sent'
  | 'email.verification_request'
  | 'email.verify'
  | 'account.delete'
  | 'email_code.request'
  | 'email_code.success'
  | 'email_code.failure'
  | 'account.address_proof'
  | 'provider.consent'
  | 'provider.consent_revoke'
  | 'provider.token'
  | 'provider.code_reuse'
  | 'identity_provider.create'
  | 'identity_provider.update'
  | 'identity_provider.delete'
  | 'upstream.sign_in'
  | 'upstream.sign_up'
  | 'upstream.failure'
  | 'upstream.link'
  | 'upstream.link_required'
  | 'upstream.unlink';

export interface AuditEntry {
  type: AuditEventType;
  actorId?: string | null;
  /**
   * `service` when `actorId` is a service client's id (a client-credentials token acting on a
   * route guarded by permissions): the row then names no user, and the client in its details.
   * A person otherwise.
   */
  actorKind?: CallerKind;
  targetType?: 'user' | 'role' | 'permission' | 'settings' | 'session' | 'client' | 'identity_provider';
  targetId?: string | null;
  client?: { ip?: string; userAgent?: string };
  /** Plain facts only (names, counts, reasons); never a secret. */
  details?: Record<string, unknown>;
}
