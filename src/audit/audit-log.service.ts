import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditEvent } from '../database/entities/audit-event.entity.js';
import { countAuditEvent } from '../metrics/service-metrics.js';

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
  | 'settings.update'
  | 'authz.escalation_refused'
  | 'account.update'
  | 'account.password_change'
  | 'account.reauthentication_failure'
  | 'account.email_change_request'
  | 'account.email_change'
  | 'account.mobile_change_request'
  | 'account.mobile_change'
  | 'session.revoke'
  | 'session.revoke_others'
  | 'totp.enrolment_start'
  | 'totp.enable'
  | 'totp.disable'
  | 'totp.reset'
  | 'totp.failure'
  | '2fa.recovery_code_used'
  | '2fa.enrolment_required';

export interface AuditEntry {
  type: AuditEventType;
  actorId?: string | null;
  targetType?: 'user' | 'role' | 'permission' | 'settings' | 'session';
  targetId?: string | null;
  client?: { ip?: string; userAgent?: string };
  /** Plain facts only (names, counts, reasons); never a secret. */
  details?: Record<string, unknown>;
}

/** The contract keeps at most this much of a client's user agent. */
export const USER_AGENT_MAX_CHARS = 256;

/** Cut by code points, so a surrogate pair is never split into an invalid character. */
function truncateCodePoints(value: string | undefined, max: number): string | null {
  if (value === undefined) return null;
  return value.length <= max ? value : Array.from(value).slice(0, max).join('');
}

/**
 * Writes the audit trail: a row per event and a log line. Recording never fails the request it
 * describes; a lost row is logged as an error instead.
 */
@Injectable()
export class AuditLog {
  private readonly logger = new Logger('Audit');

  constructor(private readonly dataSource: DataSource) {}

  async record(entry: AuditEntry): Promise<void> {
    countAuditEvent(entry);
    const row = {
      type: entry.type,
      actorId: entry.actorId ?? null,
      targetType: entry.targetType ?? null,
      targetId: entry.targetId ?? null,
      ip: entry.client?.ip?.slice(0, 64) ?? null,
      userAgent: truncateCodePoints(entry.client?.userAgent, USER_AGENT_MAX_CHARS),
      details: entry.details ?? {},
    };
    this.logger.log(
      `${row.type} actor=${row.actorId ?? '-'} target=${row.targetType ?? '-'}:${row.targetId ?? '-'} ip=${row.ip ?? '-'}`,
    );
    try {
      await this.dataSource.getRepository(AuditEvent).insert(row as never);
    } catch (error) {
      this.logger.error(`Audit event ${row.type} not stored: ${(error as Error).message}`);
    }
  }
}
