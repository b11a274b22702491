import { lockouts, logins, refreshReuse } from '../infra/telemetry/service-metrics.js';
import type { AuditEntry } from './audit-entry.js';

/**
 * Security events are already reported once, to the audit trail; the counters follow the same
 * calls, so no flow can record one without the other.
 */
export function countAuditEvent(entry: Pick<AuditEntry, 'type' | 'details'>): void {
  const method = typeof entry.details?.method === 'string' ? entry.details.method : 'unknown';
  switch (entry.type) {
    case 'login.success':
      return logins.inc({ method, outcome: 'success' });
    case 'login.failure':
      return logins.inc({ method, outcome: 'failure' });
    case 'login.locked':
      logins.inc({ method, outcome: 'locked' });
      return lockouts.inc({ kind: 'password' });
    case '2fa.challenge':
      // A challenge records the first factor's way in as `login` (its `methods` are the second's).
      return logins.inc({
        method: typeof entry.details?.login === 'string' ? entry.details.login : method,
        outcome: 'challenge',
      });
    case '2fa.success':
      return logins.inc({ method: '2fa', outcome: 'success' });
    case '2fa.failure':
      return logins.inc({ method: '2fa', outcome: 'failure' });
    case '2fa.lockout':
      return lockouts.inc({ kind: '2fa' });
    case 'otp.success':
      return logins.inc({ method: 'otp', outcome: 'success' });
    case 'otp.failure':
      return logins.inc({ method: 'otp', outcome: 'failure' });
    case 'refresh.reuse':
      return refreshReuse.inc();
    default:
      return;
  }
}
