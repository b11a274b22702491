import { Module } from '@nestjs/common';
import { OutboxObserver } from '../../outbox/outbox-observer.js';
import { AuditEventsRepository } from './audit-events.repository.js';
import { AuditLog } from './audit-log.service.js';
import { OutboxAuditing } from './outbox-auditing.js';

/**
 * The audit writer and its table, and the outbox's observer that audits deliveries; without the
 * HTTP list or the retention's timers, so the command line can import it alone.
 */
@Module({
  providers: [AuditLog, AuditEventsRepository, { provide: OutboxObserver, useClass: OutboxAuditing }],
  exports: [AuditLog, AuditEventsRepository, OutboxObserver],
})
export class AuditCoreModule {}
