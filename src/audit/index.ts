export { auditEventInsert, type AuditRow } from './audit-events.repository.js';
export { AuditLog, type AuditEntry, type AuditEventType, type AuditTarget } from './audit-log.service.js';
export { AuditModule } from './audit.module.js';
